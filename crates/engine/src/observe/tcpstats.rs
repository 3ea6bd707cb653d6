//! TCP analysis per direction (issue 22, item 1; `--stats tcp`): retransmitted, out-of-order
//! and duplicate segments, RTT samples from data→ACK pairs, the handshake's RTT and options,
//! TTL range, zero windows, unique payload bytes, payload times, which side closed, and Zeek's
//! `history` and `conn_state`.
//!
//! What counts as what follows tshark's `tcp.analysis` (so `scripts/tcp_check.py` can compare
//! every flow with it), written from the definitions, per segment of the direction that sent
//! it, in this order:
//! - a *keep-alive* (at most one byte, one below the next expected sequence number, no SYN,
//!   FIN or RST) is none of the below;
//! - a segment carrying data, SYN or FIN is a *duplicate* (tshark's spurious retransmission)
//!   when all its data was already acknowledged by the other side, and counts as a
//!   retransmission too;
//! - else, if it does not advance the sequence (it starts below the next expected number, and
//!   is not a segment of more than one byte starting one below it), it is a *retransmission*
//!   when the other side has sent at least two duplicate ACKs for its first byte within the
//!   last 20 ms (a fast retransmission), *out of order* when it comes within the handshake's
//!   RTT (3 ms when unknown) of the segment that last advanced the sequence and does not end
//!   where that one did, and a *retransmission* otherwise;
//! - a duplicate ACK is a segment with no data, no SYN, FIN or RST, a non-zero window equal to
//!   the last one, at the next expected sequence number and repeating the last ACK number.
//!
//! RTT: each segment carrying data, SYN or FIN is remembered (its end and time) until an ACK
//! covers it; an ACK that ends exactly at a remembered segment's end is a sample, unless that
//! segment was sent more than once (Karn's rule). At most [`RING`] segments are remembered per
//! direction: when the window holds more, the newest go without samples until ACKs free room
//! (tshark remembers up to 1,000, so long bulk transfers have fewer samples here).
//!
//! Zeek's `history` (conn/main.zeek's letters, upper case for the client): `S` SYN, `H`
//! SYN-ACK, `A` pure ACK, `D` data, `F` FIN, `R` RST, `Q` SYN with FIN or RST, `I` FIN with
//! RST, `T` retransmitted data, `W` zero window, `G` a gap (the other side acknowledged data
//! never seen); `A`, `D`, `I`, `Q` once per side, `S`, `H`, `F`, `R` again only for a new
//! sequence number, `T`, `W`, `G` at the 1st, 10th, 100th, … time. At most [`HISTORY`] letters
//! (Zeek has no bound). `conn_state` is Zeek's function of the two end-points' states.
//!
//! Behind an option: the state is 632 bytes a flow, in a table of its own indexed by
//! the flow table's slots, allocated zeroed (pages the flows never reach are never touched) and
//! only when asked for, so runs without it keep the 192-byte slot and pay one predicted branch
//! a packet.

use crate::classify::FlowExt;
use crate::observe::{Cx, Observer, Packet};
use bytemuck::Zeroable;
use wirespeed_export::{DirTcp, FlowRecord, TcpFields};
use wirespeed_flow::Flow;
use wirespeed_wire::TcpInfo;

const FIN: u8 = 0x01;
const SYN: u8 = 0x02;
const RST: u8 = 0x04;
const ACK: u8 = 0x10;

/// Segments remembered per direction for RTT samples.
pub(crate) const RING: usize = 16;
/// Letters of Zeek's history kept per flow.
pub(crate) const HISTORY: usize = wirespeed_export::HISTORY_MAX;
/// Bytes of state per flow (DESIGN.md and SCHEMA.md quote it).
#[cfg(test)]
const QUOTED_SLOT_BYTES: usize = 632;

/// `a` before `b` in sequence space (RFC 1982 arithmetic).
#[inline]
fn lt(a: u32, b: u32) -> bool {
    (a.wrapping_sub(b) as i32) < 0
}

/// Zeek's end-point states (`TCP_ENDPOINT_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum State {
    Inactive = 0,
    SynSent,
    SynAckSent,
    Partial,
    Established,
    Closed,
    Reset,
}

impl State {
    fn from_u8(v: u8) -> State {
        match v {
            1 => State::SynSent,
            2 => State::SynAckSent,
            3 => State::Partial,
            4 => State::Established,
            5 => State::Closed,
            6 => State::Reset,
            _ => State::Inactive,
        }
    }
}

// `have` bits of a direction.
const HAVE_NEXT: u8 = 1;
const HAVE_ACK: u8 = 2;
const HAVE_SYN: u8 = 4;
const HAVE_PAYLOAD: u8 = 8;
const HAVE_WIN: u8 = 16;
const HAVE_TTL: u8 = 32;
// `opts` bits (from the direction's SYN).
const OPT_MSS: u8 = 1;
const OPT_WS: u8 = 2;
const OPT_SACK: u8 = 4;
const OPT_TS: u8 = 8;
// Zeek's once-per-side history masks.
const H_SYN: u8 = 1;
const H_FIN: u8 = 2;
const H_RST: u8 = 4;
const H_FIN_RST: u8 = 8;
const H_DATA: u8 = 16;
const H_ACK: u8 = 32;
const H_MULTI: u8 = 64;

/// One direction's state and figures (the sender's).
#[derive(Clone, Copy, Debug, Zeroable)]
struct Dir {
    // Sequence analysis.
    have: u8,
    opts: u8,
    hist: u8,
    state: u8,
    nextseq: u32,
    lastack: u32,
    window: u16,
    win_init: u16,
    nextseq_ts: u64,
    lastack_ts: u64,
    dupacks: u32,
    /// Remembered segments: (sequence number one past the end, µs since the flow's first
    /// packet, wrapping), `ring_n` of them in order of sending; bit i of `ring_retx` when
    /// segment i was sent more than once.
    ring: [(u32, u32); RING],
    ring_n: u8,
    ttl_min: u8,
    ttl_max: u8,
    wscale: u8,
    ring_retx: u16,
    mss: u16,
    // Figures.
    retrans: u32,
    ooo: u32,
    dup: u32,
    zero_win: u32,
    retrans_bytes: u64,
    unique_bytes: u64,
    rtt_n: u32,
    rtt_min: u32,
    rtt_max: u32,
    rtt_mean: f64,
    rtt_m2: f64,
    first_payload: u64,
    last_payload: u64,
    // Zeek's history: last sequence numbers of SYN, FIN, RST, and the scaled counters.
    last_syn: u32,
    last_fin: u32,
    last_rst: u32,
    rxmit: [u32; 2],
    win0: [u32; 2],
    gap: [u32; 2],
}

impl Dir {
    #[inline]
    fn has(&self, bit: u8) -> bool {
        self.have & bit != 0
    }

    fn rtt_sample(&mut self, us: u32) {
        self.rtt_n += 1;
        if self.rtt_n == 1 {
            self.rtt_min = us;
            self.rtt_max = us;
        } else {
            self.rtt_min = self.rtt_min.min(us);
            self.rtt_max = self.rtt_max.max(us);
        }
        let x = f64::from(us);
        let d = x - self.rtt_mean;
        self.rtt_mean += d / f64::from(self.rtt_n);
        self.rtt_m2 += d * (x - self.rtt_mean);
    }

    fn fields(&self, base: u64) -> DirTcp {
        let rel = |t: u64| t.saturating_sub(base) / 1_000;
        let payload = self.has(HAVE_PAYLOAD);
        let syn = self.has(HAVE_SYN);
        DirTcp {
            retrans: self.retrans,
            retrans_bytes: self.retrans_bytes,
            ooo: self.ooo,
            dup: self.dup,
            rtt_n: self.rtt_n,
            rtt_min_us: self.rtt_min,
            rtt_mean_us: self.rtt_mean,
            rtt_max_us: self.rtt_max,
            rtt_std_us: if self.rtt_n > 0 {
                (self.rtt_m2 / f64::from(self.rtt_n)).max(0.0).sqrt()
            } else {
                0.0
            },
            ttl: self.has(HAVE_TTL).then_some((self.ttl_min, self.ttl_max)),
            mss: (self.opts & OPT_MSS != 0).then_some(self.mss),
            wscale: (self.opts & OPT_WS != 0).then_some(self.wscale),
            sack_ok: syn.then_some(self.opts & OPT_SACK != 0),
            ts_ok: syn.then_some(self.opts & OPT_TS != 0),
            win_init: self.has(HAVE_WIN).then_some(self.win_init),
            zero_win: self.zero_win,
            unique_bytes: self.unique_bytes,
            first_payload_us: payload.then(|| rel(self.first_payload)),
            last_payload_us: payload.then(|| rel(self.last_payload)),
        }
    }
}

/// One flow's state.
#[derive(Clone, Copy, Debug, Zeroable)]
struct Slot {
    /// The flow's serial plus one; 0 for a free slot.
    serial1: u64,
    /// Time of the flow's first packet seen here (ns).
    base: u64,
    /// Time of the client's first SYN (ns), and the handshake's RTT (ns, 0 until known: the
    /// client's first ACK after the server's SYN-ACK).
    syn_ts: u64,
    irtt: u64,
    /// 1 + index of the first closing event: client FIN, server FIN, client RST, server RST.
    close: u8,
    hist_len: u8,
    history: [u8; HISTORY],
    dir: [Dir; 2],
}

/// Bytes [`Tcp`] reserves a flow slot.
pub(crate) const SLOT_BYTES: usize = std::mem::size_of::<Slot>();

/// The TCP analysis of every flow of one worker's table.
pub(crate) struct Tcp {
    slots: Vec<Slot>,
}

/// One packet as the analysis needs it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Seg<'a> {
    pub ts: u64,
    /// From the client.
    pub c2s: bool,
    pub tcp: TcpInfo,
    pub ttl: u8,
    /// The TCP options (between the fixed header and the payload), as captured.
    pub options: &'a [u8],
}

impl Tcp {
    pub(crate) fn new(slots: usize) -> Self {
        Tcp {
            slots: bytemuck::zeroed_vec(slots),
        }
    }
}

impl Observer for Tcp {
    /// Each TCP segment (other transports: nothing).
    #[inline]
    fn packet(&mut self, p: &Packet<'_>, f: &Flow<FlowExt>, _cx: &mut Cx<'_>) {
        let Some(tcp) = p.tcp else {
            return;
        };
        let Some(x) = self.slots.get_mut(p.slot as usize) else {
            return;
        };
        if x.serial1 != f.serial + 1 {
            *x = Slot::zeroed();
            x.serial1 = f.serial + 1;
            x.base = p.ts;
        }
        // The options lie between the fixed header and the payload (a SYN's only are read);
        // an empty payload's offset may point anywhere, so `get`.
        let off = p.payload_off;
        let options = off
            .checked_sub(usize::from(tcp.hdr_len))
            .and_then(|start| p.frame.get(start + 20..off))
            .unwrap_or(&[]);
        x.segment(&Seg {
            ts: p.ts,
            c2s: p.c2s,
            tcp,
            ttl: p.ttl,
            options,
        });
    }

    /// The record's TCP analysis.
    #[inline]
    fn ended<'r>(&'r mut self, slot: u32, f: &Flow<FlowExt>, last: bool, rec: &mut FlowRecord<'r>) {
        let Some(s) = self.slots.get_mut(slot as usize) else {
            return;
        };
        if s.serial1 != f.serial + 1 {
            return;
        }
        rec.tcp = Some(s.fields());
        if last {
            *s = Slot::zeroed();
        }
    }
}

/// MSS, window scale, SACK permitted and timestamps of a SYN's options (RFC 9293 §3.2, RFC
/// 7323, RFC 2018); a malformed list ends the walk where it breaks.
fn syn_options(o: &[u8], d: &mut Dir) {
    let mut i = 0;
    while i < o.len() {
        match o[i] {
            0 => break,
            1 => {
                i += 1;
                continue;
            }
            kind => {
                let Some(&len) = o.get(i + 1) else { break };
                let len = usize::from(len);
                if len < 2 || i + len > o.len() {
                    break;
                }
                let v = &o[i + 2..i + len];
                match (kind, v.len()) {
                    (2, 2) => {
                        d.opts |= OPT_MSS;
                        d.mss = u16::from_be_bytes([v[0], v[1]]);
                    }
                    (3, 1) => {
                        d.opts |= OPT_WS;
                        d.wscale = v[0];
                    }
                    (4, 0) => d.opts |= OPT_SACK,
                    (8, 8) => d.opts |= OPT_TS,
                    _ => {}
                }
                i += len;
            }
        }
    }
}

impl Slot {
    fn add_history(&mut self, c2s: bool, letter: u8) {
        if usize::from(self.hist_len) < HISTORY {
            self.history[usize::from(self.hist_len)] = if c2s {
                letter
            } else {
                letter.to_ascii_lowercase()
            };
            self.hist_len += 1;
        }
    }

    /// Zeek's once-per-side letters: recorded the first time; true when seen before.
    fn check_history(&mut self, c2s: bool, mask: u8, letter: u8) -> bool {
        let d = &mut self.dir[usize::from(!c2s)];
        if d.hist & mask != 0 {
            return true;
        }
        d.hist |= mask;
        self.add_history(c2s, letter);
        false
    }

    /// Zeek's scaled letters: at the 1st, 10th, 100th, … event.
    fn scaled_history(&mut self, c2s: bool, which: fn(&mut Dir) -> &mut [u32; 2], letter: u8) {
        let c = which(&mut self.dir[usize::from(!c2s)]);
        c[0] += 1;
        if c[1] == 0 {
            c[1] = 1;
        }
        if c[0] == c[1] {
            c[1] = c[1].saturating_mul(10);
            self.add_history(c2s, letter);
        }
    }

    fn segment(&mut self, s: &Seg<'_>) {
        let c2s = s.c2s;
        let (i, r) = (usize::from(!c2s), usize::from(c2s));
        let t = s.tcp;
        let flags = t.flags;
        let seglen = u32::from(t.seg_len);
        let syn_fin = flags & (SYN | FIN) != 0;
        let ts = s.ts;
        self.history(s, seglen);
        // The other side's view, read before this segment changes anything.
        let (rev_window, rev_lastack, rev_have_ack, rev_dupacks, rev_lastack_ts) = {
            let o = &self.dir[r];
            (
                o.window,
                o.lastack,
                o.has(HAVE_ACK),
                o.dupacks,
                o.lastack_ts,
            )
        };
        let irtt = self.irtt;
        let d = &mut self.dir[i];
        // TTL, options, the first window.
        if d.has(HAVE_TTL) {
            d.ttl_min = d.ttl_min.min(s.ttl);
            d.ttl_max = d.ttl_max.max(s.ttl);
        } else {
            d.have |= HAVE_TTL;
            (d.ttl_min, d.ttl_max) = (s.ttl, s.ttl);
        }
        if flags & SYN != 0 && !d.has(HAVE_SYN) {
            d.have |= HAVE_SYN;
            syn_options(s.options, d);
        }
        if !d.has(HAVE_WIN) {
            d.have |= HAVE_WIN;
            d.win_init = t.window;
        }
        if t.window == 0 && flags & (SYN | FIN | RST) == 0 {
            d.zero_win += 1;
        }
        if seglen > 0 {
            if !d.has(HAVE_PAYLOAD) {
                d.have |= HAVE_PAYLOAD;
                d.first_payload = ts;
            }
            d.last_payload = d.last_payload.max(ts);
        }
        // Classify the segment against what this direction sent before.
        let have_next = d.has(HAVE_NEXT);
        let mut zwp = false;
        let mut keepalive = false;
        let mut dupack = false;
        if have_next {
            zwp = seglen == 1 && t.seq == d.nextseq && rev_window == 0;
            keepalive = !zwp
                && seglen <= 1
                && flags & (SYN | FIN | RST) == 0
                && d.nextseq.wrapping_sub(1) == t.seq;
            dupack = seglen == 0
                && t.window != 0
                && t.window == d.window
                && t.seq == d.nextseq
                && d.has(HAVE_ACK)
                && t.ack == d.lastack
                && flags & (SYN | FIN | RST) == 0;
        }
        let mut resent = false;
        if (seglen > 0 || syn_fin) && !keepalive && !zwp {
            let mut not_advanced = have_next && lt(t.seq, d.nextseq);
            if seglen > 1 && d.nextseq.wrapping_sub(1) == t.seq {
                not_advanced = false;
            }
            let end = t.seq.wrapping_add(seglen);
            let next = end.wrapping_add(u32::from(syn_fin));
            if seglen > 0 && rev_have_ack && !lt(rev_lastack, end) {
                // A retransmission too, as tshark marks it.
                d.dup += 1;
                d.retrans += 1;
                d.retrans_bytes += u64::from(seglen);
                resent = true;
            } else if not_advanced {
                let fast = rev_dupacks >= 2
                    && rev_lastack == t.seq
                    && ts.saturating_sub(rev_lastack_ts) < 20_000_000;
                let thres = if irtt > 0 { irtt } else { 3_000_000 };
                if !fast && ts.saturating_sub(d.nextseq_ts) < thres && d.nextseq != next {
                    d.ooo += 1;
                } else {
                    d.retrans += 1;
                    d.retrans_bytes += u64::from(seglen);
                    resent = true;
                }
            }
        }
        // Remember the segment for an RTT sample.
        let nextseq = t.seq.wrapping_add(seglen).wrapping_add(u32::from(syn_fin));
        if seglen > 0 || syn_fin {
            let at = (ts.saturating_sub(self.base) / 1_000) as u32;
            let d = &mut self.dir[i];
            // Karn: a segment sent again makes every copy's ACK ambiguous.
            let mut again = resent;
            for k in 0..usize::from(d.ring_n) {
                if d.ring[k].0 == nextseq {
                    d.ring_retx |= 1 << k;
                    again = true;
                }
            }
            if usize::from(d.ring_n) == RING {
                // Full: the oldest goes (a burst's last segment is the one an ACK most
                // often names).
                d.ring.copy_within(1.., 0);
                d.ring_retx >>= 1;
                d.ring_n -= 1;
            }
            let k = usize::from(d.ring_n);
            d.ring[k] = (nextseq, at);
            if again {
                d.ring_retx |= 1 << k;
            }
            d.ring_n += 1;
        }
        // Unique bytes: a segment's, unless it was sent before (then only what it carries
        // past the highest sequence number seen).
        let d = &mut self.dir[i];
        if seglen > 0 {
            let end = t.seq.wrapping_add(seglen);
            if !resent {
                d.unique_bytes += u64::from(seglen);
            } else if lt(d.nextseq, end) {
                d.unique_bytes += u64::from(end.wrapping_sub(d.nextseq).min(seglen));
            }
        }
        if (!have_next || lt(d.nextseq, nextseq)) && !zwp {
            d.have |= HAVE_NEXT;
            d.nextseq = nextseq;
            d.nextseq_ts = ts;
        }
        if dupack {
            d.dupacks += 1;
        } else {
            d.dupacks = 0;
        }
        d.window = t.window;
        // The ACK: samples from the other side's remembered segments, which it frees.
        if flags & ACK != 0 {
            let ack = t.ack;
            if !d.has(HAVE_ACK) || ack != d.lastack {
                d.lastack_ts = ts;
            }
            d.have |= HAVE_ACK;
            d.lastack = ack;
            let now_us = (ts.saturating_sub(self.base) / 1_000) as u32;
            let o = &mut self.dir[r];
            let (mut kept, mut retx) = (0usize, 0u16);
            let mut sample = None;
            for k in 0..usize::from(o.ring_n) {
                let (end, at) = o.ring[k];
                let was_retx = o.ring_retx & (1 << k) != 0;
                if end == ack {
                    if !was_retx && sample.is_none() {
                        sample = Some(now_us.wrapping_sub(at));
                    }
                } else if lt(ack, end) {
                    o.ring[kept] = (end, at);
                    retx |= u16::from(was_retx) << kept;
                    kept += 1;
                }
            }
            o.ring_n = kept as u8;
            o.ring_retx = retx;
            if let Some(us) = sample {
                o.rtt_sample(us);
            }
        }
        // The handshake's RTT: the client's SYN to its first ACK after the server's SYN-ACK.
        if c2s && flags & SYN != 0 && flags & ACK == 0 && self.irtt == 0 {
            // The latest SYN before the handshake completes, as tshark times it.
            self.syn_ts = ts.max(1);
        }
        if c2s
            && self.irtt == 0
            && self.syn_ts != 0
            && flags & (SYN | ACK) == ACK
            && self.dir[1].has(HAVE_SYN)
        {
            self.irtt = ts.saturating_sub(self.syn_ts).max(1);
        }
        // Which side closed first.
        if self.close == 0 {
            if flags & RST != 0 {
                self.close = if c2s { 3 } else { 4 };
            } else if flags & FIN != 0 {
                self.close = if c2s { 1 } else { 2 };
            }
        }
        self.states(c2s, flags, seglen);
    }

    /// Zeek's history letters for this segment (before the sequence state moves).
    fn history(&mut self, s: &Seg<'_>, seglen: u32) {
        let (c2s, t) = (s.c2s, s.tcp);
        let i = usize::from(!c2s);
        let flags = t.flags;
        let bits =
            u8::from(flags & SYN != 0) + u8::from(flags & FIN != 0) + u8::from(flags & RST != 0);
        if bits > 1 {
            if flags & (FIN | RST) == FIN | RST {
                self.check_history(c2s, H_FIN_RST, b'I');
            } else {
                self.check_history(c2s, H_MULTI, b'Q');
            }
        } else if bits == 1 {
            if flags & SYN != 0 {
                let letter = if flags & ACK != 0 { b'H' } else { b'S' };
                if self.check_history(c2s, H_SYN, letter) && t.seq != self.dir[i].last_syn {
                    self.add_history(c2s, letter);
                }
                self.dir[i].last_syn = t.seq;
            }
            if flags & FIN != 0 {
                let end = t.seq.wrapping_add(seglen);
                if self.check_history(c2s, H_FIN, b'F') && end != self.dir[i].last_fin {
                    self.add_history(c2s, b'F');
                }
                self.dir[i].last_fin = end;
            }
            if flags & RST != 0 {
                if self.check_history(c2s, H_RST, b'R') && t.seq != self.dir[i].last_rst {
                    self.add_history(c2s, b'R');
                }
                self.dir[i].last_rst = t.seq;
            }
        } else if seglen > 0 {
            self.check_history(c2s, H_DATA, b'D');
        } else if flags & ACK != 0 {
            self.check_history(c2s, H_ACK, b'A');
        }
        // Data at or below what this side sent before: Zeek's retransmission.
        let d = &self.dir[i];
        if seglen > 0
            && d.has(HAVE_NEXT)
            && flags & (SYN | RST) == 0
            && State::from_u8(d.state) != State::Reset
            && !lt(d.nextseq, t.seq.wrapping_add(seglen))
        {
            self.scaled_history(c2s, |d| &mut d.rxmit, b'T');
        }
        let peer = State::from_u8(self.dir[usize::from(c2s)].state);
        if t.window == 0
            && flags & RST == 0
            && peer != State::Closed
            && State::from_u8(self.dir[i].state) != State::Reset
        {
            self.scaled_history(c2s, |d| &mut d.win0, b'W');
        }
        // An ACK beyond everything the other side was seen sending: content never seen.
        let o = &self.dir[usize::from(c2s)];
        if flags & ACK != 0 && flags & (FIN | RST) == 0 && o.has(HAVE_NEXT) && lt(o.nextseq, t.ack)
        {
            self.scaled_history(!c2s, |d| &mut d.gap, b'G');
        }
    }

    /// The end-points' states, as Zeek's TCP analyzer moves them.
    fn states(&mut self, c2s: bool, flags: u8, seglen: u32) {
        let (i, r) = (usize::from(!c2s), usize::from(c2s));
        let me = State::from_u8(self.dir[i].state);
        let peer = State::from_u8(self.dir[r].state);
        let (mut me2, mut peer2) = (me, peer);
        if flags & RST != 0 {
            me2 = State::Reset;
        } else if flags & SYN != 0 {
            if flags & ACK != 0 {
                if matches!(me, State::Inactive | State::SynSent | State::Partial) {
                    me2 = State::SynAckSent;
                }
                if peer == State::SynSent {
                    peer2 = State::Established;
                }
            } else if me == State::Inactive {
                me2 = State::SynSent;
            }
        } else if flags & FIN != 0 {
            if me != State::Reset {
                me2 = State::Closed;
            }
        } else if flags & ACK != 0 || seglen > 0 {
            // The handshake's last ACK (or data after it) establishes both ends.
            let open = matches!(me, State::SynSent | State::SynAckSent | State::Established)
                && matches!(
                    peer,
                    State::SynSent | State::SynAckSent | State::Established
                );
            if open {
                me2 = State::Established;
                peer2 = State::Established;
            } else if me == State::Inactive {
                me2 = State::Partial;
            }
        }
        self.dir[i].state = me2 as u8;
        self.dir[r].state = peer2 as u8;
    }

    /// Zeek's `conn_state` (base/protocols/conn/main.zeek) of the two end-points' states.
    fn conn_state(&self) -> &'static str {
        let os = State::from_u8(self.dir[0].state);
        let rs = State::from_u8(self.dir[1].state);
        let o_inactive = matches!(os, State::Inactive | State::Partial);
        let r_inactive = matches!(rs, State::Inactive | State::Partial);
        let no_data = self.dir[0].unique_bytes == 0 && self.dir[1].unique_bytes == 0;
        if rs == State::Reset {
            if matches!(os, State::SynSent | State::SynAckSent) || (os == State::Reset && no_data) {
                "REJ"
            } else if o_inactive {
                "RSTRH"
            } else {
                "RSTR"
            }
        } else if os == State::Reset {
            if r_inactive {
                if self.syn_then_rst() {
                    "RSTOS0"
                } else {
                    "OTH"
                }
            } else {
                "RSTO"
            }
        } else if rs == State::Closed && os == State::Closed {
            "SF"
        } else if os == State::Closed {
            if r_inactive {
                "SH"
            } else {
                "S2"
            }
        } else if rs == State::Closed {
            if o_inactive {
                "SHR"
            } else {
                "S3"
            }
        } else if os == State::SynSent && rs == State::Inactive {
            "S0"
        } else if os == State::Established && rs == State::Established {
            "S1"
        } else {
            "OTH"
        }
    }

    /// The history matches Zeek's `^?S[^HAFGIQ]*R.*`: the client's SYN, then its RST with no
    /// handshake, ACK, FIN, gap or odd flags of the client's between.
    fn syn_then_rst(&self) -> bool {
        let h = &self.history[..usize::from(self.hist_len)];
        let h = h.strip_prefix(b"^").unwrap_or(h);
        let Some(rest) = h.strip_prefix(b"S") else {
            return false;
        };
        for &c in rest {
            if c == b'R' {
                return true;
            }
            if b"HAFGIQ".contains(&c) {
                return false;
            }
        }
        false
    }

    fn fields(&self) -> TcpFields {
        TcpFields {
            c2s: self.dir[0].fields(self.base),
            s2c: self.dir[1].fields(self.base),
            hs_rtt_us: (self.irtt > 0).then_some(self.irtt / 1_000),
            close: match self.close {
                1 => "client_fin",
                2 => "server_fin",
                3 => "client_rst",
                4 => "server_rst",
                _ => "",
            },
            history: self.history,
            history_len: self.hist_len,
            conn_state: self.conn_state(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// SYN options of a Linux client: MSS 1460, SACK permitted, timestamps, NOP, window scale 7
    /// (RFC 9293 §3.1, RFC 2018 §2, RFC 7323 §2.2 and §3.2 give each layout).
    const LINUX_SYN: [u8; 20] = [
        2, 4, 0x05, 0xb4, 4, 2, 8, 10, 0, 0, 0, 1, 0, 0, 0, 0, 1, 3, 3, 7,
    ];

    /// One flow fed segment by segment; times in µs.
    struct Flow(Slot);

    impl Flow {
        fn new() -> Self {
            let mut s = Slot::zeroed();
            s.base = 1_000_000_000;
            Flow(s)
        }

        #[allow(clippy::too_many_arguments)]
        fn seg(&mut self, us: u64, c2s: bool, flags: u8, seq: u32, ack: u32, len: u16, win: u16) {
            let options: &[u8] = if flags & SYN != 0 { &LINUX_SYN } else { &[] };
            self.0.segment(&Seg {
                ts: 1_000_000_000 + us * 1_000,
                c2s,
                tcp: TcpInfo {
                    flags,
                    seq,
                    ack,
                    window: win,
                    hdr_len: 20 + options.len() as u8,
                    seg_len: len,
                },
                ttl: if c2s { 64 } else { 50 + (us % 3) as u8 },
                options,
            });
        }

        fn fields(&self) -> TcpFields {
            self.0.fields()
        }
    }

    const C: bool = true;
    const S: bool = false;
    const PA: u8 = 0x18;

    /// A client's SYN at 0 (ISN 100), the server's SYN-ACK at 10 ms (ISN 5000), the client's
    /// ACK at 10.5 ms: the handshake's RTT is 10.5 ms.
    fn handshake(f: &mut Flow) {
        f.seg(0, C, SYN, 100, 0, 0, 64240);
        f.seg(10_000, S, SYN | ACK, 5000, 101, 0, 65160);
        f.seg(10_500, C, ACK, 101, 5001, 0, 502);
    }

    #[test]
    fn a_whole_connection() {
        let mut f = Flow::new();
        handshake(&mut f);
        // A request, its ACK 20 ms later, a reply acknowledged 1 ms later, FINs both ways.
        f.seg(11_000, C, PA, 101, 5001, 300, 502);
        f.seg(31_000, S, ACK, 5001, 401, 0, 509);
        f.seg(32_000, S, PA, 5001, 401, 1000, 509);
        f.seg(33_000, C, ACK, 401, 6001, 0, 501);
        f.seg(40_000, C, FIN | ACK, 401, 6001, 0, 501);
        f.seg(50_000, S, FIN | ACK, 6001, 402, 0, 509);
        f.seg(50_500, C, ACK, 402, 6002, 0, 501);
        let t = f.fields();
        assert_eq!(t.hs_rtt_us, Some(10_500));
        // Client segments: the SYN (acknowledged 10 ms later), the request (20 ms), the FIN
        // (10 ms); server segments: the SYN-ACK (0.5 ms), the reply (1 ms), the FIN (0.5 ms).
        assert_eq!(t.c2s.rtt_n, 3);
        assert_eq!((t.c2s.rtt_min_us, t.c2s.rtt_max_us), (10_000, 20_000));
        assert!((t.c2s.rtt_mean_us - 40_000.0 / 3.0).abs() < 1e-6);
        assert_eq!(t.s2c.rtt_n, 3);
        assert_eq!((t.s2c.rtt_min_us, t.s2c.rtt_max_us), (500, 1_000));
        assert_eq!((t.c2s.mss, t.c2s.wscale), (Some(1460), Some(7)));
        assert_eq!((t.c2s.sack_ok, t.c2s.ts_ok), (Some(true), Some(true)));
        assert_eq!((t.c2s.win_init, t.s2c.win_init), (Some(64240), Some(65160)));
        assert_eq!(t.c2s.ttl, Some((64, 64)));
        // 50 + 10,000, 31,000, 32,000, 50,000 mod 3.
        assert_eq!(t.s2c.ttl, Some((51, 52)));
        assert_eq!((t.c2s.unique_bytes, t.s2c.unique_bytes), (300, 1000));
        assert_eq!(t.c2s.first_payload_us, Some(11_000));
        assert_eq!(t.s2c.last_payload_us, Some(32_000));
        assert_eq!(t.close, "client_fin");
        assert_eq!(t.history(), "ShADadFf");
        assert_eq!(t.conn_state, "SF");
        for d in [&t.c2s, &t.s2c] {
            assert_eq!((d.retrans, d.ooo, d.dup, d.zero_win), (0, 0, 0, 0));
        }
    }

    #[test]
    fn a_retransmission_gives_no_rtt_sample() {
        let mut f = Flow::new();
        handshake(&mut f);
        f.seg(11_000, C, PA, 101, 5001, 100, 502);
        // Sent again 200 ms later (past the handshake's RTT): a retransmission; its ACK is
        // ambiguous (Karn).
        f.seg(211_000, C, PA, 101, 5001, 100, 502);
        f.seg(221_000, S, ACK, 5001, 201, 0, 509);
        let t = f.fields();
        assert_eq!((t.c2s.retrans, t.c2s.retrans_bytes, t.c2s.ooo), (1, 100, 0));
        assert_eq!(t.c2s.unique_bytes, 100);
        assert_eq!(t.c2s.rtt_n, 1, "the SYN's sample only");
        assert_eq!(t.history(), "ShADTa");
    }

    #[test]
    fn a_segment_filling_a_hole_soon_is_out_of_order() {
        let mut f = Flow::new();
        handshake(&mut f);
        f.seg(11_000, C, PA, 201, 5001, 100, 502);
        // 1 ms later (within the 10.5 ms handshake RTT) the bytes before it.
        f.seg(12_000, C, PA, 101, 5001, 100, 502);
        let t = f.fields();
        assert_eq!((t.c2s.ooo, t.c2s.retrans), (1, 0));
        assert_eq!(t.c2s.unique_bytes, 200);
    }

    #[test]
    fn data_already_acknowledged_is_a_duplicate() {
        let mut f = Flow::new();
        handshake(&mut f);
        f.seg(11_000, C, PA, 101, 5001, 100, 502);
        f.seg(21_000, S, ACK, 5001, 201, 0, 509);
        f.seg(300_000, C, PA, 101, 5001, 100, 502);
        let t = f.fields();
        assert_eq!((t.c2s.dup, t.c2s.retrans, t.c2s.ooo), (1, 1, 0));
    }

    #[test]
    fn a_keep_alive_is_not_a_retransmission() {
        let mut f = Flow::new();
        handshake(&mut f);
        f.seg(11_000, C, PA, 101, 5001, 100, 502);
        f.seg(21_000, S, ACK, 5001, 201, 0, 509);
        // One byte below the next sequence number, no data (Linux) or one garbage byte.
        f.seg(60_000_000, C, ACK, 200, 5001, 0, 502);
        f.seg(120_000_000, C, ACK, 200, 5001, 1, 502);
        let t = f.fields();
        assert_eq!((t.c2s.retrans, t.c2s.ooo, t.c2s.dup), (0, 0, 0));
    }

    #[test]
    fn zero_windows_are_counted() {
        let mut f = Flow::new();
        handshake(&mut f);
        f.seg(11_000, S, PA, 5001, 101, 1000, 509);
        f.seg(12_000, C, ACK, 101, 6001, 0, 0);
        f.seg(13_000, C, ACK, 101, 6001, 0, 0);
        let t = f.fields();
        assert_eq!(t.c2s.zero_win, 2);
        assert_eq!(t.history(), "ShAdW");
    }

    /// Zeek's conn_state for the connections its documentation describes.
    #[test]
    fn zeek_connection_states() {
        let run = |segs: &[(bool, u8, u32, u32, u16)]| {
            let mut f = Flow::new();
            for (i, &(c2s, flags, seq, ack, len)) in segs.iter().enumerate() {
                f.seg(i as u64 * 1_000, c2s, flags, seq, ack, len, 1000);
            }
            let t = f.fields();
            (t.conn_state, t.history().to_string())
        };
        let syn = (C, SYN, 100, 0, 0);
        let synack = (S, SYN | ACK, 5000, 101, 0);
        let ack = (C, ACK, 101, 5001, 0);
        // Connection attempt seen, no reply.
        assert_eq!(run(&[syn]), ("S0", "S".into()));
        // Attempt rejected.
        assert_eq!(run(&[syn, (S, RST | ACK, 0, 101, 0)]), ("REJ", "Sr".into()));
        // Established, not terminated.
        assert_eq!(run(&[syn, synack, ack]), ("S1", "ShA".into()));
        // Established, a close attempt by one side only.
        assert_eq!(
            run(&[syn, synack, ack, (C, FIN | ACK, 101, 5001, 0)]).0,
            "S2"
        );
        assert_eq!(
            run(&[syn, synack, ack, (S, FIN | ACK, 5001, 101, 0)]).0,
            "S3"
        );
        // Established, then aborted by a RST from either side.
        assert_eq!(run(&[syn, synack, ack, (C, RST, 101, 0, 0)]).0, "RSTO");
        assert_eq!(run(&[syn, synack, ack, (S, RST, 5001, 0, 0)]).0, "RSTR");
        // A SYN then the originator's RST, no SYN-ACK seen.
        assert_eq!(run(&[syn, (C, RST, 101, 0, 0)]), ("RSTOS0", "SR".into()));
        // A SYN then the originator's FIN, no SYN-ACK seen: half open.
        assert_eq!(run(&[syn, (C, FIN, 101, 0, 0)]).0, "SH");
        // Midstream traffic only.
        assert_eq!(
            run(&[(C, PA, 7, 9, 10), (S, ACK, 9, 17, 0)]),
            ("OTH", "Da".into())
        );
        // Both sides closed after a handshake.
        assert_eq!(
            run(&[
                syn,
                synack,
                ack,
                (C, FIN | ACK, 101, 5001, 0),
                (S, FIN | ACK, 5001, 102, 0)
            ])
            .0,
            "SF"
        );
    }

    #[test]
    fn repeated_letters_follow_zeek() {
        let mut f = Flow::new();
        // Three SYNs with the same sequence number: one S; a new number: another S.
        f.seg(0, C, SYN, 100, 0, 0, 1000);
        f.seg(1_000_000, C, SYN, 100, 0, 0, 1000);
        f.seg(3_000_000, C, SYN, 100, 0, 0, 1000);
        f.seg(9_000_000, C, SYN, 900, 0, 0, 1000);
        assert_eq!(f.fields().history(), "SS");
        // Retransmissions: a T at the 1st and the 10th.
        let mut g = Flow::new();
        handshake(&mut g);
        g.seg(11_000, C, PA, 101, 5001, 10, 502);
        for i in 0..12 {
            g.seg(1_000_000 * (i + 1), C, PA, 101, 5001, 10, 502);
        }
        let t = g.fields();
        assert_eq!(t.c2s.retrans, 12);
        assert_eq!(t.history(), "ShADTT");
    }

    #[test]
    fn malformed_options_end_the_walk() {
        let mut d = Dir::zeroed();
        // MSS with a length running past the end, then nothing is read.
        syn_options(&[2, 40, 5, 180], &mut d);
        assert_eq!(d.opts, 0);
        // Length 0 or 1 would never advance: refused.
        syn_options(&[3, 0, 7, 4, 2], &mut d);
        assert_eq!(d.opts, 0);
        syn_options(&[1, 1, 4, 2, 3, 3, 14, 0, 2, 4, 1, 0], &mut d);
        assert_eq!(d.opts, OPT_SACK | OPT_WS);
        assert_eq!(d.wscale, 14);
    }

    /// DESIGN.md and SCHEMA.md give the per-flow size: a change must be a choice.
    #[test]
    fn slot_size_is_documented() {
        assert_eq!(std::mem::size_of::<Slot>(), QUOTED_SLOT_BYTES);
    }

    proptest! {
        /// Any segments at all: no panic, the ring bounded, the samples ordered.
        #[test]
        fn hostile_segments(v in proptest::collection::vec(
            (any::<bool>(), any::<u8>(), 0u32..3000, 0u32..3000, 0u16..1500, 0u16..3, 0u64..50_000),
            1..300,
        )) {
            let mut f = Flow::new();
            let mut t = 0;
            for (c2s, flags, seq, ack, len, win, gap) in v {
                t += gap;
                f.seg(t, c2s, flags, seq, ack, len, win);
                for d in &f.0.dir {
                    prop_assert!(usize::from(d.ring_n) <= RING);
                }
                prop_assert!(usize::from(f.0.hist_len) <= HISTORY);
            }
            let r = f.fields();
            for d in [&r.c2s, &r.s2c] {
                if d.rtt_n > 0 {
                    prop_assert!(f64::from(d.rtt_min_us) <= d.rtt_mean_us + 1e-6);
                    prop_assert!(d.rtt_mean_us <= f64::from(d.rtt_max_us) + 1e-6);
                }
                prop_assert!(d.retrans >= d.dup);
            }
            prop_assert!(r.history().is_ascii());
        }
    }
}
