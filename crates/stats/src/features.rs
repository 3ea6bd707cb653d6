//! Early-flow features: what a flow's first packets look like, kept in every flow slot until the
//! statistical verdict, and exported in the flow record.
//!
//! Per packet (the first [`SPLT_CAP`] of the flow, every packet counted, TCP handshake included)
//! the slot keeps the direction, the transport payload length, the IP+transport header length,
//! the TCP flags and the inter-arrival time: 8 bytes a packet, 40 in all; and apart, the
//! direction and payload length of the first 4 packets that carried payload, wherever they
//! came (8 bytes, what a model of [`SizeMode::Data`] reads). Both "IP length" and "payload
//! length" sequences, and the 12 AtoZ features, are derived from these when needed (at bind
//! time or in the record), so the per-packet upkeep is a handful of stores.

/// Packets recorded per flow (the `N` of the SPLT arrays). A compile-time capacity: the
/// slot must stay small; statistical models use at most this many positions.
pub const SPLT_CAP: usize = 5;

/// The first packets of a flow, and the first that carried payload. 48 bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Early {
    /// Packets recorded (≤ [`SPLT_CAP`]).
    pub n: u8,
    /// Bit i set: packet i went server→client.
    pub s2c: u8,
    /// IP length − payload length of packet i (IP and transport headers), saturated at 255.
    pub hdr: [u8; SPLT_CAP],
    /// TCP flags of packet i (0 for other transports).
    pub flags: [u8; SPLT_CAP],
    /// Transport payload length of packet i.
    pub payload: [u16; SPLT_CAP],
    /// Microseconds between packet i and packet i+1 (saturated).
    pub iat_us: [u32; SPLT_CAP - 1],
    /// The first [`LEAD_CAP`] packets that carried payload, however many packets came before
    /// them (the handshake, pure ACKs and empty datagrams skipped): [`SizeMode::Data`]'s
    /// sequence. Bit 15 set when the packet went server→client, the low 15 bits its transport
    /// payload length saturated at 32,767; 0 = not seen (a recorded packet carried a byte at
    /// least), so the recorded ones are the entries before the first 0. 8 bytes where a count
    /// and a direction byte would have made 12 and grown the flow slot past 192 bytes.
    pub lead: [u16; LEAD_CAP],
}

/// Payload-carrying packets [`Early::lead`] keeps (a model of [`SizeMode::Data`] with more
/// positions sees the rest absent).
pub const LEAD_CAP: usize = 4;

/// TCP flag bits used here.
pub mod tcp {
    /// FIN.
    pub const FIN: u8 = 0x01;
    /// SYN.
    pub const SYN: u8 = 0x02;
    /// RST.
    pub const RST: u8 = 0x04;
    /// PSH.
    pub const PSH: u8 = 0x08;
    /// ACK.
    pub const ACK: u8 = 0x10;
}

impl Early {
    /// Record one packet; a no-op once [`SPLT_CAP`] packets are recorded. `gap_ns` is the time
    /// since the flow's previous packet (ignored for the first). No allocation, no branch on
    /// packet contents beyond saturation.
    #[inline]
    pub fn push(&mut self, s2c: bool, ip_len: u16, payload: u32, flags: u8, gap_ns: u64) {
        let pl = payload.min(u16::MAX as u32) as u16;
        if pl != 0 && self.lead[LEAD_CAP - 1] == 0 {
            let d = self.nlead();
            if let Some(l) = self.lead.get_mut(d) {
                *l = u16::from(s2c) << 15 | pl.min(0x7fff);
            }
        }
        let i = self.n as usize;
        if i >= SPLT_CAP {
            return;
        }
        if let Some(p) = self.payload.get_mut(i) {
            *p = pl;
        }
        if let Some(h) = self.hdr.get_mut(i) {
            *h = ip_len.saturating_sub(pl).min(255) as u8;
        }
        if let Some(f) = self.flags.get_mut(i) {
            *f = flags;
        }
        if i > 0 {
            if let Some(t) = self.iat_us.get_mut(i - 1) {
                *t = (gap_ns / 1000).min(u32::MAX as u64) as u32;
            }
        }
        self.s2c |= (s2c as u8) << i;
        self.n += 1;
    }

    /// Did any of the first `first` packets recorded carry payload? (Without any, the features
    /// describe a handshake or a scan, the same for every application.)
    #[inline]
    pub fn any_payload(&self, first: usize) -> bool {
        let n = usize::from(self.n).min(first);
        self.payload.iter().take(n).any(|&p| p != 0)
    }

    /// Payload-carrying packets recorded in [`Early::lead`] (≤ [`LEAD_CAP`]): its non-zero
    /// entries, which fill in order. Four compares and no loop: it runs for every packet of a
    /// flow the model has not been asked about yet (a `take_while` count stayed a call in the
    /// release build, +1.2% a packet).
    #[inline]
    pub fn nlead(&self) -> usize {
        const _: () = assert!(LEAD_CAP == 4);
        let [a, b, c, d] = self.lead;
        usize::from(a != 0) + usize::from(b != 0) + usize::from(c != 0) + usize::from(d != 0)
    }

    /// How far the flow has come for a model of `mode`: its packets (`packets`, the flow's
    /// count, not capped), or for [`SizeMode::Data`] its payload-carrying packets recorded. The
    /// model is asked when this reaches its position P.
    #[inline]
    pub fn progress(&self, mode: SizeMode, packets: u64) -> u64 {
        if mode == SizeMode::Data {
            self.nlead() as u64
        } else {
            packets
        }
    }

    /// Is there anything for a model of `mode` at position `p` to tell applications apart by?
    /// Not a flow shorter than `p` packets none of which carried payload (a scan's SYN, a
    /// refused connection), nor, for [`SizeMode::Data`], a flow without payload at all.
    #[inline]
    pub fn speaks(&self, mode: SizeMode, p: usize) -> bool {
        if mode == SizeMode::Data {
            self.lead[0] != 0
        } else {
            self.len() >= p || self.any_payload(p)
        }
    }

    /// Packets recorded.
    #[inline]
    pub fn len(&self) -> usize {
        (self.n as usize).min(SPLT_CAP)
    }

    /// No packet recorded.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// Did packet i go server→client?
    #[inline]
    pub fn is_s2c(&self, i: usize) -> bool {
        self.s2c >> i & 1 != 0
    }

    /// IP length of packet i (payload + headers).
    #[inline]
    pub fn ip_len(&self, i: usize) -> u32 {
        self.payload.get(i).copied().unwrap_or(0) as u32
            + self.hdr.get(i).copied().unwrap_or(0) as u32
    }

    /// Signed size of packet i: + client→server, − server→client, of the IP length or the payload
    /// (`Data` as `Payload`: packet i of all packets).
    #[inline]
    pub fn signed(&self, i: usize, mode: SizeMode) -> i32 {
        let v = match mode {
            SizeMode::Ip => self.ip_len(i) as i32,
            SizeMode::Payload | SizeMode::Data => self.payload.get(i).copied().unwrap_or(0) as i32,
        };
        if self.is_s2c(i) {
            -v
        } else {
            v
        }
    }

    /// The same flow as seen after only its first `p` packets (what the runtime knows at
    /// packet `p`), and its first `p` payload-carrying ones: training uses this so it sees
    /// what the classifier will see.
    pub fn truncated(&self, p: usize) -> Early {
        let mut e = *self;
        let p = p.min(SPLT_CAP);
        for l in e.lead.iter_mut().skip(p) {
            *l = 0;
        }
        if e.len() > p {
            e.n = p as u8;
            e.s2c &= ((1u16 << p) - 1) as u8;
            for i in p..SPLT_CAP {
                e.hdr[i] = 0;
                e.flags[i] = 0;
                e.payload[i] = 0;
                if i > 0 {
                    e.iat_us[i - 1] = 0;
                }
            }
        }
        e
    }

    /// The sequence a model scores: the signed sizes of the first `out.len()` packets under
    /// `mode`; returns how many positions are present (the rest are absent). `Data`: of the
    /// first `out.len()` packets that carried payload, wherever they came.
    #[inline]
    pub fn sizes(&self, mode: SizeMode, out: &mut [i32]) -> usize {
        if mode == SizeMode::Data {
            let mut k = 0;
            for (o, &l) in out
                .iter_mut()
                .zip(self.lead.iter().take_while(|&&l| l != 0))
            {
                let v = i32::from(l & 0x7fff);
                *o = if l >> 15 != 0 { -v } else { v };
                k += 1;
            }
            return k;
        }
        let k = self.len().min(out.len());
        for (i, o) in out.iter_mut().take(k).enumerate() {
            *o = self.signed(i, mode);
        }
        k
    }

    /// The 12 AtoZ features over the recorded packets (see [`ATOZ_NAMES`]); NaN = undefined
    /// (e.g. a mean over no packet).
    pub fn atoz(&self, l4: u8, server_port: u16) -> [f32; 12] {
        let n = self.len();
        let mut f = [f32::NAN; 12];
        f[0] = server_port as f32;
        // Initial window: payload bytes a side sends before the other side first answers
        // (a packet of the other direction after that side's first data).
        let mut win = [0u32; 2];
        let mut closed = [false; 2];
        let mut sent = [false; 2];
        let mut push = [0u32; 2];
        let mut data = [0u32; 2];
        let mut seg_sum_s2c = 0u32;
        let mut seg_min_c2s = u32::MAX;
        let mut ip_c2s = [0u32; SPLT_CAP];
        let mut n_c2s = 0usize;
        let (mut w_sum, mut w_sq, mut w_n) = (0f64, 0f64, 0u32);
        let mut rtt = 0u32;
        let mut unacked_c2s = 0u32;
        for i in 0..n {
            let d = self.is_s2c(i) as usize;
            let o = 1 - d;
            let pl = self.payload[i] as u32;
            let fl = self.flags[i];
            if sent[o] {
                closed[o] = true;
            }
            if pl > 0 {
                if !closed[d] {
                    win[d] += pl;
                }
                sent[d] = true;
                data[d] += 1;
                if fl & tcp::PSH != 0 {
                    push[d] += 1;
                }
            }
            if d == 0 {
                ip_c2s[n_c2s] = self.ip_len(i);
                n_c2s += 1;
                if pl > 0 {
                    seg_min_c2s = seg_min_c2s.min(pl);
                    unacked_c2s += 1;
                }
            } else {
                if pl > 0 {
                    seg_sum_s2c += pl;
                }
                let w = self.ip_len(i) as f64;
                w_sum += w;
                w_sq += w * w;
                w_n += 1;
                // An ACK from the server after client data: one RTT sample (tcptrace counts one
                // per acknowledged segment that was not retransmitted).
                if fl & tcp::ACK != 0 && unacked_c2s > 0 {
                    rtt += unacked_c2s;
                    unacked_c2s = 0;
                }
            }
        }
        f[1] = win[0] as f32;
        f[2] = win[1] as f32;
        f[3] = push[0] as f32;
        f[4] = push[1] as f32;
        if data[1] > 0 {
            f[5] = seg_sum_s2c as f32 / data[1] as f32;
        }
        if seg_min_c2s != u32::MAX {
            f[6] = seg_min_c2s as f32;
        }
        f[7] = data[0] as f32;
        if n_c2s > 0 {
            let v = &mut ip_c2s[..n_c2s];
            v.sort_unstable();
            f[8] = if n_c2s % 2 == 1 {
                v[n_c2s / 2] as f32
            } else {
                (v[n_c2s / 2 - 1] + v[n_c2s / 2]) as f32 / 2.0
            };
        }
        if w_n > 0 {
            let m = w_sum / w_n as f64;
            f[9] = (w_sq / w_n as f64 - m * m).max(0.0) as f32;
        }
        f[10] = rtt as f32;
        f[11] = l4 as f32;
        f
    }
}

/// Which size a packet's signed size is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SizeMode {
    /// IP total length of every packet, handshake included.
    Ip,
    /// Transport payload length of every packet (a pure ACK is ±0).
    Payload,
    /// Transport payload length of the first packets that carry payload (Bernaille, Crotti: the
    /// handshake and pure ACKs are skipped, however many there were); the model is asked at the
    /// P-th of them.
    Data,
}

impl SizeMode {
    /// Code in model files.
    pub fn code(self) -> u8 {
        match self {
            SizeMode::Ip => 0,
            SizeMode::Payload => 1,
            SizeMode::Data => 2,
        }
    }

    /// From a model-file code.
    pub fn from_code(c: u8) -> Option<SizeMode> {
        Some(match c {
            0 => SizeMode::Ip,
            1 => SizeMode::Payload,
            2 => SizeMode::Data,
            _ => return None,
        })
    }

    /// Command-line name.
    pub fn name(self) -> &'static str {
        match self {
            SizeMode::Ip => "ip",
            SizeMode::Payload => "payload",
            SizeMode::Data => "data",
        }
    }
}

/// Names of the 12 AtoZ features (record columns and ARFF attributes), in [`Early::atoz`] order.
pub const ATOZ_NAMES: [&str; 12] = [
    "atoz_server_port",
    "atoz_init_win_c2s",
    "atoz_init_win_s2c",
    "atoz_push_pkts_c2s",
    "atoz_push_pkts_s2c",
    "atoz_avg_seg_s2c",
    "atoz_min_seg_c2s",
    "atoz_data_pkts_c2s",
    "atoz_med_ip_c2s",
    "atoz_var_ip_s2c",
    "atoz_rtt_samples_c2s",
    "atoz_l4",
];

#[cfg(test)]
mod tests {
    use super::*;

    /// A TCP exchange: SYN, SYN-ACK, ACK, request (PSH), reply (PSH), computed by hand.
    fn http_like() -> Early {
        let mut e = Early::default();
        // (s2c, ip_len, payload, flags, gap)
        e.push(false, 60, 0, tcp::SYN, 0);
        e.push(true, 60, 0, tcp::SYN | tcp::ACK, 1_000_000);
        e.push(false, 52, 0, tcp::ACK, 20_000);
        e.push(false, 352, 300, tcp::PSH | tcp::ACK, 5_000);
        e.push(true, 1452, 1400, tcp::PSH | tcp::ACK, 30_000_000);
        e.push(true, 1452, 1400, tcp::ACK, 1); // beyond the capacity: ignored
        e
    }

    #[test]
    fn records_first_packets_only() {
        let e = http_like();
        assert_eq!(e.len(), 5);
        assert_eq!(e.iat_us, [1000, 20, 5, 30_000]);
        let mut s = [0; 5];
        assert_eq!(e.sizes(SizeMode::Ip, &mut s), 5);
        assert_eq!(s, [60, -60, 52, 352, -1452]);
        // The sixth packet, beyond the first five, is still among the first with payload.
        assert_eq!(e.sizes(SizeMode::Data, &mut s), 3);
        assert_eq!(&s[..3], &[300, -1400, -1400]);
        assert_eq!(e.nlead(), 3);
        assert!(e.speaks(SizeMode::Data, 4) && !Early::default().speaks(SizeMode::Data, 4));
        assert_eq!(e.sizes(SizeMode::Data, &mut s[..2]), 2);
        assert_eq!(e.progress(SizeMode::Data, 6), 3);
        assert_eq!(e.progress(SizeMode::Payload, 6), 6);
        assert_eq!(e.truncated(2).sizes(SizeMode::Data, &mut s), 2);
        assert_eq!(e.sizes(SizeMode::Payload, &mut s), 5);
        assert_eq!(s, [0, 0, 0, 300, -1400]);
        let t = e.truncated(3);
        assert_eq!(t.len(), 3);
        assert_eq!(t.sizes(SizeMode::Ip, &mut s), 3);
        assert_eq!(t.iat_us, [1000, 20, 0, 0]);
    }

    proptest::proptest! {
        /// Any packet sequence: no panic, at most SPLT_CAP recorded, IP length = payload +
        /// header when the header fits a byte, and the AtoZ counts stay within the packets seen.
        #[test]
        fn any_packets(pkts in proptest::collection::vec(
            (proptest::bool::ANY, 0u16..=u16::MAX, 0u32..70_000, 0u8..=255, 0u64..u64::MAX), 0..12),
            l4 in 0u8..=255, port in 0u16..=u16::MAX)
        {
            let mut e = Early::default();
            for &(d, ip, pl, fl, gap) in &pkts {
                e.push(d, ip, pl, fl, gap);
            }
            proptest::prop_assert_eq!(e.len(), pkts.len().min(SPLT_CAP));
            for (i, &(_, ip, pl, _, _)) in pkts.iter().take(SPLT_CAP).enumerate() {
                let pl = pl.min(65535) as u16;
                if ip >= pl && ip - pl <= 255 {
                    proptest::prop_assert_eq!(e.ip_len(i), ip as u32);
                }
            }
            let f = e.atoz(l4, port);
            let n = e.len() as f32;
            proptest::prop_assert!(f[3] + f[4] <= n && f[7] <= n && f[10] <= n);
            let mut s = [0i32; SPLT_CAP];
            for m in [SizeMode::Ip, SizeMode::Payload, SizeMode::Data] {
                proptest::prop_assert!(e.sizes(m, &mut s) <= e.len());
            }
            // `Data`: the first payload-carrying packets in order, signed by direction.
            let want: Vec<i32> = pkts
                .iter()
                .filter(|p| p.2 != 0)
                .take(LEAD_CAP)
                .map(|&(d, _, pl, _, _)| {
                    let v = pl.min(0x7fff) as i32;
                    if d { -v } else { v }
                })
                .collect();
            let k = e.sizes(SizeMode::Data, &mut s);
            proptest::prop_assert_eq!(&s[..k], &want[..]);
        }
    }

    #[test]
    fn atoz_by_hand() {
        let f = http_like().atoz(6, 80);
        assert_eq!(f[0], 80.0);
        assert_eq!(f[1], 300.0); // client sent 300 before the server answered
        assert_eq!(f[2], 1400.0);
        assert_eq!(f[3], 1.0);
        assert_eq!(f[4], 1.0);
        assert_eq!(f[5], 1400.0);
        assert_eq!(f[6], 300.0);
        assert_eq!(f[7], 1.0);
        assert_eq!(f[8], 60.0); // median of 60, 52, 352
                                // s2c IP lengths 60 and 1452: mean 756, variance 696² = 484416
        assert_eq!(f[9], 484_416.0);
        assert_eq!(f[10], 1.0); // the reply acknowledges the request
        assert_eq!(f[11], 6.0);
        let empty = Early::default().atoz(17, 53);
        assert!(empty[5].is_nan() && empty[6].is_nan() && empty[8].is_nan() && empty[9].is_nan());
    }
}
