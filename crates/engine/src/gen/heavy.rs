//! The heavy-tailed trace (`wirespeed gen heavy-tail`): a realistic link beside the worst case,
//! where most packets belong to a few long flows.
//!
//! **Flow sizes.** A flow's size in packets (both directions, handshake and close included) is
//! `N = ⌊X⌋`, `X` from a bounded Pareto distribution on `[min, max + 1)` with shape `alpha`:
//! `P(N ≥ n) = ((min/n)^α − (min/(max+1))^α) / (1 − (min/(max+1))^α)` for integers
//! `min ≤ n ≤ max`. Defaults `alpha` 1.2, `min` 2, `max` 1,000,000: Crovella and Bestavros
//! (IEEE/ACM ToN 5(6), 1997) measured Web transfer sizes heavy-tailed with a tail index near
//! 1.2, the 1 < α < 2 range (finite mean, infinite variance) that the self-similarity of link
//! traffic rests on; the cap stands for the largest transfers (1.4 GB at the MTU). With these
//! defaults the mean is about 10 packets, and the largest tenth of the flows carries about two
//! thirds of the packets (`0.1^(1 − 1/α)` = 0.68 for the unbounded distribution; 0.58 to 0.77
//! in traces of 5,000 flows, seeds 1 to 12).
//!
//! **Applications.** Each flow is one of seven, drawn by weight among those that fit its size
//! (a DNS exchange has 2 to 4 packets, a TCP connection at least 5):
//!
//! | app | weight | packets | first packets |
//! |---|---:|---|---|
//! | DNS (UDP 53) | 40 | 2–4 | A then AAAA query for a host name, each answered |
//! | NTP (UDP 123) | 4 | 2–4 | client (mode 3) and server (mode 4) packets |
//! | QUIC (UDP 443) | 20 | 2– | a v1 client Initial holding a ClientHello with SNI and ALPN h3, sealed with RFC 9001's Initial keys and padded to 1,200 bytes; the server's Initial (ServerHello) |
//! | TLS (TCP 443) | 45 | 5– | a TLS 1.3 ClientHello with SNI; ServerHello, ChangeCipherSpec, encrypted flight |
//! | HTTP (TCP 80) | 12 | 5– | `GET` with Host and User-Agent, `200 OK` with Content-Length (uploads: `POST` with `Expect: 100-continue`, `100 Continue`) |
//! | SSH (TCP 22) | 3 | 5– | both banners |
//! | SMTP (TCP 25) | 5 | 5– | the server's `220` banner, the client's `EHLO`, then its envelope (`MAIL FROM`, `RCPT TO`, `DATA`) and a base64 message |
//!
//! Host names (SNI, Host, DNS question) are drawn from [`HOSTS`], each with the application nDPI
//! names it by; a flow's expected application is that name, or the protocol's for the
//! `example` names. One flow in four is IPv6.
//!
//! **Packets.** TCP: SYN, SYN-ACK, ACK, the first payload, the other side's first payload, then
//! the bulk: two full segments (MSS 1,460 bytes over IPv4, 1,440 over IPv6: 1,514-byte frames)
//! from the side sending the bulk and one ACK from the other, with the last segment of random
//! length; the close is FIN, FIN, ACK (flows of 8 packets and more) or the client's RST.
//! Sequence and acknowledgement numbers follow the bytes sent; checksums are computed. The
//! server sends the bulk, except in a tenth of TLS and HTTP flows, a twentieth of QUIC flows,
//! half of SSH flows (the other half interactive: small packets both ways) and every SMTP flow.
//! QUIC bulk: 1,350-byte short-header datagrams, with a 33–48-byte one back every two. Bulk
//! bytes are random (in TLS application-data records over TLS).
//!
//! **Time and interleaving.** `window` flows are open at once; each packet comes from one of
//! them picked at random, and a flow that ends is replaced by the next. Packets follow each
//! other at 10 Gbit/s line rate (frame + 24 bytes of FCS, preamble and gap), nanosecond pcap.
//!
//! **Addresses.** Client `i` (the flow's number) is 10.16.0.0/16 or 2001:db8:c::/112 host
//! `i mod 65536`, port `32768 + (i / 65536) mod 28232`: no two flows share a 5-tuple in the
//! first 1.8 billion. Servers are random in 198.18.0.0/15 (RFC 2544's benchmarking block) and
//! 2001:db8:5::/48, so that no address owner names a flow.
//!
//! **Determinism and memory.** Flow sizes, the interleaving and each flow's content come from
//! separate SplitMix64 streams of the seed: the same seed and build write the same bytes.
//! Frames are written as they are made; memory holds the open flows (`window` of them, about
//! 200 bytes each) and a 66 KB pool of random bytes, whatever the number of flows.

use super::hello::{client_hello, crypto_frame, record, seal_initial, server_hello};
use super::{dns_msg, fill_l4_checksum, DemoFlow, FrameBuilder, L4};
use std::io::{self, Write};
use wirespeed_capture::PcapWriter;

/// Parameters of the heavy-tailed trace.
#[derive(Clone, Copy, Debug)]
pub struct HeavyTail {
    /// Number of flows.
    pub flows: u64,
    /// Seed of every random choice.
    pub seed: u64,
    /// Flows open (interleaved) at once.
    pub window: u32,
    /// Pareto shape α of the flow sizes.
    pub alpha: f64,
    /// Fewest packets a flow (at least 2).
    pub min_pkts: u32,
    /// Most packets a flow.
    pub max_pkts: u32,
    /// Capture time of the first packet, ns since the epoch.
    pub start_ns: u64,
}

impl Default for HeavyTail {
    fn default() -> Self {
        HeavyTail {
            flows: 20_000,
            seed: 37,
            window: 1_000,
            alpha: 1.2,
            min_pkts: 2,
            max_pkts: 1_000_000,
            start_ns: 1_700_000_000_000_000_000,
        }
    }
}

/// One flow of the trace as built, given when its last packet is written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeavyFlow {
    /// The flow's number, in the order flows begin (0-based).
    pub id: u64,
    /// Its 5-tuple, counts, and the application it was built as (nDPI's name).
    pub flow: DemoFlow,
    /// The protocol it runs over, nDPI's master ("TLS", "QUIC", "DNS", ...).
    pub master: &'static str,
    /// The host name its first packets carry ("" for SSH, SMTP and NTP).
    pub host: &'static str,
}

/// What [`heavy_tail`] wrote.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HeavySummary {
    /// Flows.
    pub flows: u64,
    /// Packets.
    pub packets: u64,
    /// Captured bytes of the frames (Ethernet header to the end of the payload).
    pub bytes: u64,
}

/// Host names the flows carry, with the application nDPI names each by ("" where only the
/// protocol names the flow).
pub const HOSTS: [(&str, &str); 8] = [
    ("www.youtube.com", "YouTube"),
    ("www.netflix.com", "NetFlix"),
    ("github.com", "Github"),
    ("en.wikipedia.org", "Wikipedia"),
    ("www.google.com", "Google"),
    ("www.example.com", ""),
    ("cdn.example.net", ""),
    ("api.example.org", ""),
];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Dns,
    Ntp,
    Quic,
    Tls,
    Http,
    Ssh,
    Smtp,
}

struct App {
    kind: Kind,
    weight: u64,
    min: u32,
    max: u32,
    port: u16,
    master: &'static str,
}

const APPS: [App; 7] = [
    App {
        kind: Kind::Dns,
        weight: 40,
        min: 2,
        max: 4,
        port: 53,
        master: "DNS",
    },
    App {
        kind: Kind::Ntp,
        weight: 4,
        min: 2,
        max: 4,
        port: 123,
        master: "NTP",
    },
    App {
        kind: Kind::Quic,
        weight: 20,
        min: 2,
        max: u32::MAX,
        port: 443,
        master: "QUIC",
    },
    App {
        kind: Kind::Tls,
        weight: 45,
        min: 5,
        max: u32::MAX,
        port: 443,
        master: "TLS",
    },
    App {
        kind: Kind::Http,
        weight: 12,
        min: 5,
        max: u32::MAX,
        port: 80,
        master: "HTTP",
    },
    App {
        kind: Kind::Ssh,
        weight: 3,
        min: 5,
        max: u32::MAX,
        port: 22,
        master: "SSH",
    },
    App {
        kind: Kind::Smtp,
        weight: 5,
        min: 5,
        max: u32::MAX,
        port: 25,
        master: "SMTP",
    },
];

/// SplitMix64 (Steele, Lea and Flood, OOPSLA 2014): small, fast, and every seed is good.
#[derive(Clone, Debug)]
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (multiply-shift; the bias is below 2^-32 for the sizes used here).
    fn below(&mut self, n: u64) -> u64 {
        ((self.next() as u128 * n as u128) >> 64) as u64
    }

    /// Uniform in (0, 1).
    fn unit(&mut self) -> f64 {
        ((self.next() >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    }

    fn fill(&mut self, b: &mut [u8]) {
        for c in b.chunks_mut(8) {
            c.copy_from_slice(&self.next().to_le_bytes()[..c.len()]);
        }
    }
}

/// The start of stream `stream` of `seed`: far from every other stream's.
fn stream(seed: u64, stream: u64) -> Rng {
    let mut r = Rng(seed ^ stream.wrapping_mul(0xd605_bbb5_8c8a_bd4d));
    Rng(r.next())
}

/// Sizes from the bounded Pareto distribution, by inversion of its CDF.
struct Pareto {
    alpha: f64,
    lo: f64,
    /// `1 − (lo/hi)^α`.
    span: f64,
    min: u32,
    max: u32,
}

impl Pareto {
    fn new(alpha: f64, min: u32, max: u32) -> Self {
        let (lo, hi) = (min as f64, max as f64 + 1.0);
        Pareto {
            alpha,
            lo,
            span: 1.0 - (lo / hi).powf(alpha),
            min,
            max,
        }
    }

    fn sample(&self, r: &mut Rng) -> u32 {
        let x = self.lo * (1.0 - r.unit() * self.span).powf(-1.0 / self.alpha);
        (x.floor().min(u32::MAX as f64) as u32).clamp(self.min, self.max)
    }
}

const C: usize = 0;
const S: usize = 1;
const FIN: u8 = 0x01;
const SYN: u8 = 0x02;
const RST: u8 = 0x04;
const PSH: u8 = 0x08;
const ACK: u8 = 0x10;

/// Bytes of the random pool bulk payloads are cut from (plus one frame's worth).
const POOL: usize = 65_536;
/// A TLS application-data record as a bulk stream carries them: 5-byte header, 16 KiB of
/// plaintext, 17 bytes of AEAD tag and content type.
const TLS_RECORD: u64 = 5 + 16_401;
/// QUIC bulk datagram size.
const QUIC_DATA: usize = 1_350;
/// QUIC Initial datagram size (RFC 9000 §14.1's minimum for a client).
const QUIC_INITIAL: usize = 1_200;

struct Flow {
    id: u64,
    app: usize,
    host: usize,
    /// Packets in all, and written so far.
    n: u32,
    k: u32,
    v6: bool,
    c: [u8; 16],
    s: [u8; 16],
    cp: u16,
    sp: u16,
    /// TCP: the next sequence number of each side.
    nxt: [u32; 2],
    /// The client sends the bulk.
    up: bool,
    /// SSH: small packets both ways instead of a bulk transfer.
    interactive: bool,
    /// Bulk payload bytes each side has sent.
    sent: [u64; 2],
    /// Where this flow's bulk bytes begin in the pool.
    salt: u64,
    /// Length of the last bulk segment.
    last_len: u16,
    /// QUIC: the client's and the server's connection ids, the client's first DCID.
    cid: [[u8; 8]; 3],
    /// TLS: the client's session id, echoed by the server.
    sid: [u8; 32],
    dns_id: u16,
    /// Packets and bytes client to server, server to client.
    count: [(u64, u64); 2],
    rng: Rng,
}

impl Flow {
    fn new(id: u64, n: u32, seed: u64) -> Flow {
        let mut rng = stream(seed, 0x100 + id);
        let total: u64 = APPS
            .iter()
            .filter(|a| (a.min..=a.max).contains(&n))
            .map(|a| a.weight)
            .sum();
        let mut pick = rng.below(total);
        let mut app = 0;
        for (i, a) in APPS.iter().enumerate() {
            if !(a.min..=a.max).contains(&n) {
                continue;
            }
            if pick < a.weight {
                app = i;
                break;
            }
            pick -= a.weight;
        }
        let kind = APPS[app].kind;
        let v6 = rng.below(4) == 0;
        let h = (id & 0xffff) as u16;
        let mut c = [0u8; 16];
        let mut s = [0u8; 16];
        if v6 {
            c[..6].copy_from_slice(&[0x20, 0x01, 0x0d, 0xb8, 0x00, 0x0c]);
            c[14..].copy_from_slice(&h.to_be_bytes());
            s[..6].copy_from_slice(&[0x20, 0x01, 0x0d, 0xb8, 0x00, 0x05]);
            rng.fill(&mut s[6..]);
        } else {
            c[..2].copy_from_slice(&[10, 16]);
            c[2..4].copy_from_slice(&h.to_be_bytes());
            s[0] = 198;
            s[1] = 18 + rng.below(2) as u8;
            rng.fill(&mut s[2..4]);
        }
        let cp = 32_768 + ((id >> 16) % 28_232) as u16;
        let up = match kind {
            Kind::Tls | Kind::Http => rng.below(10) == 0,
            Kind::Quic => rng.below(20) == 0,
            Kind::Ssh => rng.below(2) == 0,
            Kind::Smtp => true,
            Kind::Dns | Kind::Ntp => false,
        };
        let interactive = kind == Kind::Ssh && rng.below(2) == 0;
        let mss = if v6 { 1_440 } else { 1_460 };
        let mut cid = [[0u8; 8]; 3];
        for c in &mut cid {
            rng.fill(c);
        }
        let mut sid = [0u8; 32];
        rng.fill(&mut sid);
        Flow {
            id,
            app,
            host: rng.below(HOSTS.len() as u64) as usize,
            n,
            k: 0,
            v6,
            c,
            s,
            cp,
            sp: APPS[app].port,
            nxt: [rng.next() as u32, rng.next() as u32],
            up,
            interactive,
            sent: [0, 0],
            salt: rng.below(POOL as u64),
            last_len: 1 + rng.below(mss) as u16,
            cid,
            sid,
            dns_id: rng.next() as u16,
            count: [(0, 0); 2],
            rng,
        }
    }

    fn kind(&self) -> Kind {
        APPS[self.app].kind
    }

    fn mss(&self) -> usize {
        if self.v6 {
            1_440
        } else {
            1_460
        }
    }

    fn host(&self) -> &'static str {
        HOSTS[self.host].0
    }

    /// TCP: packets before the close (FIN, FIN, ACK from 8 packets on, else one RST).
    fn tcp_mid_end(&self) -> u32 {
        self.n - if self.n >= 8 { 3 } else { 1 }
    }

    /// TCP: the bulk's slots (after the two first payloads): two data segments, one ACK, ...
    fn tcp_bulk_slots(&self) -> u32 {
        self.tcp_mid_end().saturating_sub(5)
    }

    /// The slot of the last data segment, if any.
    fn last_data_slot(&self) -> Option<u32> {
        let t = self.tcp_bulk_slots();
        let l = t.checked_sub(1)?;
        Some(if l % 3 == 2 { l - 1 } else { l })
    }

    /// Bulk bytes of a TCP flow (what HTTP's Content-Length announces).
    fn tcp_bulk_bytes(&self) -> u64 {
        let t = self.tcp_bulk_slots() as u64;
        let data = t - t / 3;
        match data {
            0 => 0,
            d => (d - 1) * self.mss() as u64 + self.last_len as u64,
        }
    }

    /// `len` bulk bytes from `side`: random bytes from the pool, shaped by the application.
    fn data(&mut self, side: usize, len: usize, pool: &[u8]) -> Vec<u8> {
        let off = self.sent[side];
        self.sent[side] += len as u64;
        let start = ((off + self.salt) % POOL as u64) as usize;
        let mut v = pool[start..start + len].to_vec();
        match self.kind() {
            Kind::Tls => {
                // Application-data records of 16 KiB, headers where the stream puts them.
                let hdr = [0x17, 0x03, 0x03, 0x40, 0x11];
                let mut r = off / TLS_RECORD * TLS_RECORD;
                while r < off + len as u64 {
                    for (i, b) in hdr.iter().enumerate() {
                        let at = r + i as u64;
                        if at >= off && at < off + len as u64 {
                            v[(at - off) as usize] = *b;
                        }
                    }
                    r += TLS_RECORD;
                }
            }
            Kind::Smtp => {
                // The envelope (pipelined, RFC 2920), the message's head, then a base64
                // attachment, 76 characters a line.
                const HEAD: &[u8] =
                    b"MAIL FROM:<alice@example.org>\r\nRCPT TO:<bob@example.net>\r\n\
                    DATA\r\nFrom: Alice <alice@example.org>\r\nTo: Bob <bob@example.net>\r\n\
                    Subject: report\r\nMIME-Version: 1.0\r\n\
                    Content-Type: application/octet-stream\r\n\
                    Content-Transfer-Encoding: base64\r\n\r\n";
                const B64: &[u8; 64] =
                    b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
                for (i, b) in v.iter_mut().enumerate() {
                    let at = off + i as u64;
                    *b = match HEAD.get(at as usize) {
                        Some(h) => *h,
                        None => match (at - HEAD.len() as u64) % 78 {
                            76 => b'\r',
                            77 => b'\n',
                            _ => B64[(*b & 63) as usize],
                        },
                    };
                }
            }
            _ => {}
        }
        v
    }

    /// The first payload of a TCP flow (the server's for SMTP).
    fn opener(&mut self) -> Vec<u8> {
        match self.kind() {
            Kind::Tls => {
                let mut r = [0u8; 96];
                self.rng.fill(&mut r);
                r[32..64].copy_from_slice(&self.sid);
                record(0x16, 0x0301, &client_hello(self.host(), &r, None))
            }
            Kind::Http => {
                let ua = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0";
                if self.up {
                    format!(
                        "POST /upload/{:x} HTTP/1.1\r\nHost: {}\r\nUser-Agent: {ua}\r\n\
                         Content-Type: application/octet-stream\r\nContent-Length: {}\r\n\
                         Expect: 100-continue\r\n\r\n",
                        self.id,
                        self.host(),
                        self.tcp_bulk_bytes()
                    )
                } else {
                    format!(
                        "GET /media/{:x}.bin HTTP/1.1\r\nHost: {}\r\nUser-Agent: {ua}\r\n\
                         Accept: */*\r\nAccept-Encoding: gzip, deflate\r\nConnection: keep-alive\r\n\r\n",
                        self.id,
                        self.host()
                    )
                }
                .into_bytes()
            }
            Kind::Ssh => b"SSH-2.0-OpenSSH_9.6p1 Ubuntu-3ubuntu13.5\r\n".to_vec(),
            Kind::Smtp => b"220 mail.example.net ESMTP Postfix (Debian/GNU)\r\n".to_vec(),
            Kind::Dns | Kind::Ntp | Kind::Quic => unreachable!("not TCP"),
        }
    }

    /// The other side's first payload.
    fn reply(&mut self) -> Vec<u8> {
        match self.kind() {
            Kind::Tls => {
                let mut r = [0u8; 64];
                self.rng.fill(&mut r);
                let mut v = record(0x16, 0x0303, &server_hello(&r, &self.sid));
                v.extend_from_slice(&record(0x14, 0x0303, &[1]));
                // The encrypted rest of the server's flight (certificate, verify, finished).
                let mut flight = vec![0u8; 1_000 + self.rng.below(300) as usize];
                self.rng.fill(&mut flight);
                v.extend_from_slice(&record(0x17, 0x0303, &flight));
                v
            }
            Kind::Http if self.up => b"HTTP/1.1 100 Continue\r\n\r\n".to_vec(),
            Kind::Http => format!(
                "HTTP/1.1 200 OK\r\nServer: nginx\r\nContent-Type: application/octet-stream\r\n\
                 Content-Length: {}\r\n\r\n",
                self.tcp_bulk_bytes()
            )
            .into_bytes(),
            Kind::Ssh => b"SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u3\r\n".to_vec(),
            Kind::Smtp => b"EHLO client.example.org\r\n".to_vec(),
            Kind::Dns | Kind::Ntp | Kind::Quic => unreachable!("not TCP"),
        }
    }

    /// The next TCP segment: side, flags, payload.
    fn tcp_next(&mut self, pool: &[u8]) -> (usize, u8, Vec<u8>) {
        let k = self.k;
        let mid_end = self.tcp_mid_end();
        let opener = if self.kind() == Kind::Smtp { S } else { C };
        match k {
            0 => (C, SYN, Vec::new()),
            1 => (S, SYN | ACK, Vec::new()),
            2 => (C, ACK, Vec::new()),
            3 => (opener, PSH | ACK, self.opener()),
            4 if k < mid_end => (1 - opener, PSH | ACK, self.reply()),
            k if k < mid_end => {
                let slot = k - 5;
                if self.interactive {
                    // A keystroke, its echo: SSH packets of 36 to 92 bytes.
                    let side = (slot % 2) as usize;
                    let len = 36 + 8 * self.rng.below(8) as usize;
                    return (side, PSH | ACK, self.data(side, len, pool));
                }
                let sender = if self.up { C } else { S };
                if slot % 3 == 2 {
                    return (1 - sender, ACK, Vec::new());
                }
                if Some(slot) == self.last_data_slot() {
                    let len = self.last_len as usize;
                    (sender, PSH | ACK, self.data(sender, len, pool))
                } else {
                    let len = self.mss();
                    (sender, ACK, self.data(sender, len, pool))
                }
            }
            _ if self.n < 8 => (C, RST | ACK, Vec::new()),
            _ => match k - mid_end {
                0 => (C, FIN | ACK, Vec::new()),
                1 => (S, FIN | ACK, Vec::new()),
                _ => (C, ACK, Vec::new()),
            },
        }
    }

    /// The next UDP datagram: side, payload.
    fn udp_next(&mut self, pool: &[u8]) -> (usize, Vec<u8>) {
        let k = self.k;
        match self.kind() {
            Kind::Dns => {
                let id = self.dns_id.wrapping_add((k / 2) as u16);
                let aaaa = (k / 2) % 2 == 1;
                let qtype = if aaaa { 28 } else { 1 };
                if k.is_multiple_of(2) {
                    (C, dns_msg(id, self.host(), qtype, None))
                } else {
                    // Answers point into the documentation blocks: no flow goes there.
                    let mut a = [0u8; 16];
                    self.rng.fill(&mut a);
                    let a: &[u8] = if aaaa {
                        a[..6].copy_from_slice(&[0x20, 0x01, 0x0d, 0xb8, 0x00, 0x0a]);
                        &a
                    } else {
                        a[..3].copy_from_slice(&[192, 0, 2]);
                        &a[..4]
                    };
                    (S, dns_msg(id, self.host(), qtype, Some(a)))
                }
            }
            Kind::Ntp => {
                let mut m = vec![0u8; 48];
                self.rng.fill(&mut m[40..]);
                if k.is_multiple_of(2) {
                    // Version 4, mode 3 (client), poll 2^6 s.
                    m[..4].copy_from_slice(&[0x23, 0, 6, 0xec]);
                    (C, m)
                } else {
                    // Version 4, mode 4 (server), stratum 2, reference id and timestamps.
                    m[..4].copy_from_slice(&[0x24, 2, 6, 0xe9]);
                    self.rng.fill(&mut m[12..40]);
                    (S, m)
                }
            }
            Kind::Quic => self.quic_next(pool),
            _ => unreachable!("not UDP"),
        }
    }

    fn quic_next(&mut self, pool: &[u8]) -> (usize, Vec<u8>) {
        let [ccid, scid, first] = self.cid;
        // Long header with two 8-byte ids, no token, 2-byte length and packet number.
        let frames_len = QUIC_INITIAL - (1 + 4 + 1 + 8 + 1 + 8 + 1 + 2 + 2) - 16;
        match self.k {
            0 => {
                let mut r = [0u8; 96];
                self.rng.fill(&mut r);
                let mut f = Vec::with_capacity(frames_len);
                crypto_frame(&mut f, &client_hello(self.host(), &r, Some(&ccid)));
                f.resize(frames_len, 0); // PADDING frames
                (C, seal_initial(&first, &ccid, &first, false, 0, &f))
            }
            1 => {
                let mut r = [0u8; 64];
                self.rng.fill(&mut r);
                // ACK of the client's packet 0, then the ServerHello.
                let mut f = vec![0x02, 0, 0, 0, 0];
                crypto_frame(&mut f, &server_hello(&r, &[]));
                f.resize(frames_len, 0);
                (S, seal_initial(&ccid, &scid, &first, true, 0, &f))
            }
            k => {
                let slot = k - 2;
                let sender = if self.up { C } else { S };
                let (side, len) = if slot % 3 == 2 {
                    (1 - sender, 33 + self.rng.below(16) as usize)
                } else {
                    (sender, QUIC_DATA)
                };
                let mut v = self.data(side, len, pool);
                // Short header: fixed bit, the receiver's connection id, protected payload.
                v[0] = 0x40 | (v[0] & 0x3f);
                v[1..9].copy_from_slice(if side == C { &scid } else { &ccid });
                (side, v)
            }
        }
    }

    /// The next frame and the side that sends it.
    fn next(&mut self, b: &FrameBuilder, pool: &[u8]) -> (usize, Vec<u8>) {
        let (side, l4_tcp, payload) = match self.kind() {
            Kind::Tls | Kind::Http | Kind::Ssh | Kind::Smtp => {
                let (side, flags, p) = self.tcp_next(pool);
                (side, Some(flags), p)
            }
            _ => {
                let (side, p) = self.udp_next(pool);
                (side, None, p)
            }
        };
        let (sport, dport) = if side == C {
            (self.cp, self.sp)
        } else {
            (self.sp, self.cp)
        };
        let l4 = match l4_tcp {
            Some(flags) => {
                let seq = self.nxt[side];
                let ack = if flags & ACK != 0 {
                    self.nxt[1 - side]
                } else {
                    0
                };
                let ctl = (flags & (SYN | FIN) != 0) as u32;
                self.nxt[side] = seq.wrapping_add(payload.len() as u32 + ctl);
                L4::Tcp {
                    sport,
                    dport,
                    flags,
                    seq,
                    ack,
                    payload: &payload,
                }
            }
            None => L4::Udp {
                sport,
                dport,
                payload: &payload,
            },
        };
        let (src, dst) = if side == C {
            (self.c, self.s)
        } else {
            (self.s, self.c)
        };
        let mut f = if self.v6 {
            b.ipv6(src, dst, &l4)
        } else {
            b.ipv4(
                src[..4].try_into().expect("4 bytes"),
                dst[..4].try_into().expect("4 bytes"),
                &l4,
            )
        };
        fill_l4_checksum(&mut f);
        self.k += 1;
        self.count[side].0 += 1;
        self.count[side].1 += f.len() as u64;
        (side, f)
    }

    fn done(&self) -> HeavyFlow {
        let app = &APPS[self.app];
        let named = matches!(app.kind, Kind::Dns | Kind::Quic | Kind::Tls | Kind::Http);
        let ip = |a: &[u8; 16]| -> String {
            if self.v6 {
                std::net::Ipv6Addr::from(*a).to_string()
            } else {
                std::net::Ipv4Addr::new(a[0], a[1], a[2], a[3]).to_string()
            }
        };
        let by_host = HOSTS[self.host].1;
        let mut flow = DemoFlow::new(
            if app.kind == Kind::Dns || app.kind == Kind::Ntp || app.kind == Kind::Quic {
                "UDP"
            } else {
                "TCP"
            },
            (ip(&self.c), self.cp),
            (ip(&self.s), self.sp),
            0,
            if named && !by_host.is_empty() {
                by_host
            } else {
                app.master
            },
        );
        flow.c2s = self.count[C];
        flow.s2c = self.count[S];
        HeavyFlow {
            id: self.id,
            flow,
            master: app.master,
            host: if named { self.host() } else { "" },
        }
    }
}

/// Write the heavy-tailed trace to `out` as a nanosecond pcap, calling `on_flow` with each flow
/// as its last packet is written (in the order flows end). Refuses `alpha` not above 0,
/// `min_pkts` below 2 and `max_pkts` below `min_pkts`.
pub fn heavy_tail<W: Write>(
    out: W,
    p: &HeavyTail,
    mut on_flow: impl FnMut(&HeavyFlow),
) -> io::Result<HeavySummary> {
    let bad = |m: &str| io::Error::new(io::ErrorKind::InvalidInput, m.to_string());
    if !(p.alpha.is_finite() && p.alpha > 0.0) {
        return Err(bad("the Pareto shape (alpha) must be a number above 0"));
    }
    if p.min_pkts < 2 {
        return Err(bad("a flow needs at least 2 packets (min-pkts)"));
    }
    if p.max_pkts < p.min_pkts {
        return Err(bad("max-pkts is below min-pkts"));
    }
    let mut w = PcapWriter::new(out, 1, true)?;
    let sizes = Pareto::new(p.alpha, p.min_pkts, p.max_pkts);
    let mut size_rng = stream(p.seed, 1);
    let mut sched = stream(p.seed, 2);
    let mut pool = vec![0u8; POOL + 1_500];
    stream(p.seed, 3).fill(&mut pool);
    let window = p.window.max(1) as u64;
    let mut open: Vec<Flow> = Vec::with_capacity(window.min(p.flows) as usize);
    let mut started = 0u64;
    while started < p.flows && (open.len() as u64) < window {
        open.push(Flow::new(started, sizes.sample(&mut size_rng), p.seed));
        started += 1;
    }
    let b = FrameBuilder { vlan: 0 };
    let mut sum = HeavySummary::default();
    let mut ps = 0u64;
    while !open.is_empty() {
        let i = sched.below(open.len() as u64) as usize;
        let f = &mut open[i];
        let (_, frame) = f.next(&b, &pool);
        w.write(p.start_ns + ps / 1_000, &frame, frame.len() as u32)?;
        // 10 Gbit/s: 800 ps a byte, with 4 bytes of FCS and 20 of preamble and gap.
        ps += (frame.len() as u64 + 24) * 800;
        sum.packets += 1;
        sum.bytes += frame.len() as u64;
        if f.k == f.n {
            on_flow(&f.done());
            sum.flows += 1;
            if started < p.flows {
                open[i] = Flow::new(started, sizes.sample(&mut size_rng), p.seed);
                started += 1;
            } else {
                open.swap_remove(i);
            }
        }
    }
    w.finish()?;
    Ok(sum)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trace(p: &HeavyTail) -> (Vec<u8>, Vec<HeavyFlow>) {
        let mut out = Vec::new();
        let mut flows = Vec::new();
        let s = heavy_tail(&mut out, p, |f| flows.push(f.clone())).unwrap();
        assert_eq!(s.flows, flows.len() as u64);
        (out, flows)
    }

    #[test]
    fn same_seed_same_bytes_other_seed_other_bytes() {
        let p = HeavyTail {
            flows: 300,
            window: 50,
            ..HeavyTail::default()
        };
        let (a, fa) = trace(&p);
        let (b, fb) = trace(&p);
        assert!(a == b, "the same seed wrote different bytes");
        assert_eq!(fa, fb);
        let (c, _) = trace(&HeavyTail { seed: 38, ..p });
        assert!(a != c, "seeds 37 and 38 wrote the same bytes");
    }

    /// Every flow has the packets its size says, and the pcap holds their sum.
    #[test]
    fn flows_have_their_drawn_sizes_and_the_file_their_packets() {
        let p = HeavyTail {
            flows: 500,
            window: 64,
            ..HeavyTail::default()
        };
        let (bytes, flows) = trace(&p);
        assert_eq!(flows.len(), 500);
        let mut size_rng = stream(p.seed, 1);
        let sizes = Pareto::new(p.alpha, p.min_pkts, p.max_pkts);
        let mut want: Vec<u32> = (0..500).map(|_| sizes.sample(&mut size_rng)).collect();
        let mut by_id = flows.clone();
        by_id.sort_by_key(|f| f.id);
        for (f, n) in by_id.iter().zip(&mut want) {
            assert_eq!(f.flow.c2s.0 + f.flow.s2c.0, *n as u64, "flow {}", f.id);
        }
        // Records: 24-byte header, then 16-byte record headers.
        let (mut off, mut n, mut len) = (24usize, 0u64, 0u64);
        while off + 16 <= bytes.len() {
            let incl = u32::from_le_bytes(bytes[off + 8..off + 12].try_into().unwrap()) as usize;
            off += 16 + incl;
            len += incl as u64;
            n += 1;
        }
        assert_eq!(off, bytes.len());
        let pk: u64 = flows.iter().map(|f| f.flow.c2s.0 + f.flow.s2c.0).sum();
        let by: u64 = flows.iter().map(|f| f.flow.c2s.1 + f.flow.s2c.1).sum();
        assert_eq!((n, len), (pk, by));
    }

    /// The inversion gives the bounded Pareto's probabilities: the share of draws at or above
    /// n, over 200,000 draws, within 1% (absolute) of the formula, and nothing outside the
    /// bounds.
    #[test]
    fn pareto_draws_follow_the_distribution() {
        let (alpha, min, max) = (1.2, 2u32, 10_000u32);
        let d = Pareto::new(alpha, min, max);
        let mut r = stream(1, 1);
        let draws: Vec<u32> = (0..200_000).map(|_| d.sample(&mut r)).collect();
        assert!(draws.iter().all(|&x| (min..=max).contains(&x)));
        let h = max as f64 + 1.0;
        let ccdf = |n: f64| {
            ((min as f64 / n).powf(alpha) - (min as f64 / h).powf(alpha))
                / (1.0 - (min as f64 / h).powf(alpha))
        };
        for n in [2u32, 3, 5, 10, 30, 100, 1_000] {
            let got = draws.iter().filter(|&&x| x >= n).count() as f64 / draws.len() as f64;
            assert!(
                (got - ccdf(n as f64)).abs() < 0.01,
                "P(N >= {n}): drew {got:.4}, formula {:.4}",
                ccdf(n as f64)
            );
        }
    }

    /// Memory is bounded by the window: with 1 flow open at a time, flows do not interleave
    /// (each flow's packets are contiguous), and the trace ends when the last flow does.
    #[test]
    fn a_window_of_one_writes_flows_one_after_another() {
        let p = HeavyTail {
            flows: 40,
            window: 1,
            ..HeavyTail::default()
        };
        let (_, flows) = trace(&p);
        let ids: Vec<u64> = flows.iter().map(|f| f.id).collect();
        assert_eq!(ids, (0..40).collect::<Vec<_>>());
    }

    #[test]
    fn bad_parameters_are_refused() {
        for p in [
            HeavyTail {
                alpha: 0.0,
                ..HeavyTail::default()
            },
            HeavyTail {
                min_pkts: 1,
                ..HeavyTail::default()
            },
            HeavyTail {
                min_pkts: 10,
                max_pkts: 9,
                ..HeavyTail::default()
            },
        ] {
            let e = heavy_tail(Vec::new(), &p, |_| {}).unwrap_err();
            assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
        }
    }
}
