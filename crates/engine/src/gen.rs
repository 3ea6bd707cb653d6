//! Synthetic captures.
//!
//! * [`worst_case`]: seed 000's stress trace — minimum-size frames, `P` packets per flow,
//!   addresses and ports incremented per flow, `W` flows interleaved round-robin, timestamps
//!   spaced at 10 GbE line rate (67.2 ns per 64-byte frame).
//! * [`demo`]: a small, realistic mix (TCP handshakes with HTTP, TLS, SSH and SMTP payload, DNS,
//!   NTP, ICMP echo, a VLAN-tagged flow, IPv6, a fragmented datagram, ARP, a truncated frame). Its
//!   [`DemoFlow`] list is the expected result, written down by construction, independent of the
//!   decoder.
//!
//! * [`heavy_tail`]: a realistic trace beside the worst case — flow sizes from a bounded Pareto
//!   distribution, the applications' real first packets (TLS and QUIC hellos with SNI, HTTP with
//!   Host, DNS, SSH, SMTP, NTP), TCP with handshakes and closes, MTU-sized bulk data; seeded and
//!   written as it goes (module `heavy`).
//!
//! Frames are built by [`FrameBuilder`], a small owned builder with its own checksum code, kept
//! apart from the decoder so that tests of one are not tests of itself.

use std::io::{self, Write};
use wirespeed_capture::PcapWriter;

mod heavy;
mod hello;

pub use heavy::{heavy_tail, HeavyFlow, HeavySummary, HeavyTail};

/// Ethernet II frame builder for IPv4/IPv6 with TCP, UDP or ICMP.
#[derive(Clone, Debug)]
pub struct FrameBuilder {
    /// 802.1Q tag to insert (0 = none).
    pub vlan: u16,
}

const ETH_SRC: [u8; 6] = [0x02, 0, 0, 0, 0, 1];
const ETH_DST: [u8; 6] = [0x02, 0, 0, 0, 0, 2];

fn csum(data: &[u8], mut sum: u32) -> u16 {
    let mut chunks = data.chunks_exact(2);
    for c in &mut chunks {
        sum += u16::from_be_bytes([c[0], c[1]]) as u32;
    }
    if let [b] = chunks.remainder() {
        sum += (*b as u32) << 8;
    }
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

/// Transport of a built frame.
#[derive(Clone, Copy, Debug)]
pub enum L4<'a> {
    /// TCP with flags, seq, ack.
    Tcp {
        /// Source port.
        sport: u16,
        /// Destination port.
        dport: u16,
        /// Flags byte.
        flags: u8,
        /// Sequence number.
        seq: u32,
        /// Acknowledgement number.
        ack: u32,
        /// Payload.
        payload: &'a [u8],
    },
    /// UDP.
    Udp {
        /// Source port.
        sport: u16,
        /// Destination port.
        dport: u16,
        /// Payload.
        payload: &'a [u8],
    },
    /// ICMP echo request (type 8) or reply (0) / ICMPv6 128/129.
    Echo {
        /// Request (true) or reply.
        request: bool,
        /// Identifier.
        id: u16,
        /// Sequence.
        seq: u16,
    },
}

impl FrameBuilder {
    fn eth(&self, out: &mut Vec<u8>, ethertype: u16) {
        out.extend_from_slice(&ETH_DST);
        out.extend_from_slice(&ETH_SRC);
        if self.vlan != 0 {
            out.extend_from_slice(&0x8100u16.to_be_bytes());
            out.extend_from_slice(&(self.vlan & 0x0fff).to_be_bytes());
        }
        out.extend_from_slice(&ethertype.to_be_bytes());
    }

    fn l4_bytes(l4: &L4<'_>, v6: bool) -> (u8, Vec<u8>) {
        match *l4 {
            L4::Tcp {
                sport,
                dport,
                flags,
                seq,
                ack,
                payload,
            } => {
                let mut t = Vec::with_capacity(20 + payload.len());
                t.extend_from_slice(&sport.to_be_bytes());
                t.extend_from_slice(&dport.to_be_bytes());
                t.extend_from_slice(&seq.to_be_bytes());
                t.extend_from_slice(&ack.to_be_bytes());
                t.push(5 << 4);
                t.push(flags);
                t.extend_from_slice(&65535u16.to_be_bytes());
                t.extend_from_slice(&[0, 0, 0, 0]);
                t.extend_from_slice(payload);
                (6, t)
            }
            L4::Udp {
                sport,
                dport,
                payload,
            } => {
                let mut u = Vec::with_capacity(8 + payload.len());
                u.extend_from_slice(&sport.to_be_bytes());
                u.extend_from_slice(&dport.to_be_bytes());
                u.extend_from_slice(&((8 + payload.len()) as u16).to_be_bytes());
                u.extend_from_slice(&[0, 0]);
                u.extend_from_slice(payload);
                (17, u)
            }
            L4::Echo { request, id, seq } => {
                let ty = match (v6, request) {
                    (false, true) => 8,
                    (false, false) => 0,
                    (true, true) => 128,
                    (true, false) => 129,
                };
                let mut e = vec![ty, 0, 0, 0];
                e.extend_from_slice(&id.to_be_bytes());
                e.extend_from_slice(&seq.to_be_bytes());
                e.extend_from_slice(b"wirespeed-echo!!");
                if !v6 {
                    let c = csum(&e, 0);
                    e[2..4].copy_from_slice(&c.to_be_bytes());
                }
                (if v6 { 58 } else { 1 }, e)
            }
        }
    }

    /// An IPv4 frame (`frag`: identification, offset in bytes, more-fragments) carrying `l4`.
    pub fn ipv4(&self, src: [u8; 4], dst: [u8; 4], l4: &L4<'_>) -> Vec<u8> {
        let (proto, body) = Self::l4_bytes(l4, false);
        self.ipv4_raw(src, dst, proto, &body, 0, 0, false)
    }

    /// An IPv4 frame with `body` as the IP payload, and fragmentation fields.
    #[allow(clippy::too_many_arguments)]
    pub fn ipv4_raw(
        &self,
        src: [u8; 4],
        dst: [u8; 4],
        proto: u8,
        body: &[u8],
        id: u16,
        frag_offset: u16,
        more: bool,
    ) -> Vec<u8> {
        let mut out = Vec::with_capacity(38 + body.len());
        self.eth(&mut out, 0x0800);
        let ip0 = out.len();
        out.push(0x45);
        out.push(0);
        out.extend_from_slice(&((20 + body.len()) as u16).to_be_bytes());
        out.extend_from_slice(&id.to_be_bytes());
        let ff = (frag_offset / 8) | if more { 0x2000 } else { 0 };
        out.extend_from_slice(&ff.to_be_bytes());
        out.push(64);
        out.push(proto);
        out.extend_from_slice(&[0, 0]);
        out.extend_from_slice(&src);
        out.extend_from_slice(&dst);
        let c = csum(&out[ip0..ip0 + 20], 0);
        out[ip0 + 10..ip0 + 12].copy_from_slice(&c.to_be_bytes());
        out.extend_from_slice(body);
        out
    }

    /// An IPv6 frame carrying `l4`.
    pub fn ipv6(&self, src: [u8; 16], dst: [u8; 16], l4: &L4<'_>) -> Vec<u8> {
        let (proto, body) = Self::l4_bytes(l4, true);
        let mut out = Vec::with_capacity(58 + body.len());
        self.eth(&mut out, 0x86dd);
        out.extend_from_slice(&[0x60, 0, 0, 0]);
        out.extend_from_slice(&(body.len() as u16).to_be_bytes());
        out.push(proto);
        out.push(64);
        out.extend_from_slice(&src);
        out.extend_from_slice(&dst);
        out.extend_from_slice(&body);
        out
    }
}

/// Parameters of the worst-case trace.
#[derive(Clone, Copy, Debug)]
pub struct WorstCase {
    /// Number of flows.
    pub flows: u32,
    /// Packets per flow.
    pub pkts_per_flow: u32,
    /// Flows interleaved at once.
    pub window: u32,
    /// Frame size in bytes as captured (60 = a 64-byte Ethernet frame without its FCS).
    pub frame_len: usize,
    /// Capture time of the first packet, ns since the epoch.
    pub start_ns: u64,
}

impl Default for WorstCase {
    fn default() -> Self {
        WorstCase {
            flows: 1_000_000,
            pkts_per_flow: 5,
            window: 65_536,
            frame_len: 60,
            start_ns: 1_700_000_000_000_000_000,
        }
    }
}

/// Write the worst-case trace to `out` as a nanosecond pcap; returns the packets written.
/// Flow `i` is UDP from 10.0.0.0+i port 1024+(i mod 64000) to 172.16.0.0+i port 80+(i mod 1000);
/// its odd-numbered packets go back from the server, so every flow is bidirectional.
pub fn worst_case<W: Write>(out: W, p: &WorstCase) -> io::Result<u64> {
    let mut w = PcapWriter::new(out, 1, true)?;
    let b = FrameBuilder { vlan: 0 };
    let payload_len = p.frame_len.saturating_sub(14 + 20 + 8);
    let payload = vec![0u8; payload_len];
    let window = p.window.max(1);
    let mut ts = p.start_ns;
    let mut n = 0u64;
    let mut templates: Vec<[Vec<u8>; 2]> = Vec::new();
    let mut base = 0u32;
    while base < p.flows {
        let count = window.min(p.flows - base);
        templates.clear();
        for i in base..base + count {
            let c = (0x0a00_0000u32 + i).to_be_bytes();
            let s = (0xac10_0000u32 + i).to_be_bytes();
            let cp = 1024 + (i % 64_000) as u16;
            let sp = 80 + (i % 1000) as u16;
            let up = L4::Udp {
                sport: cp,
                dport: sp,
                payload: &payload,
            };
            let down = L4::Udp {
                sport: sp,
                dport: cp,
                payload: &payload,
            };
            templates.push([b.ipv4(c, s, &up), b.ipv4(s, c, &down)]);
        }
        for k in 0..p.pkts_per_flow {
            for t in &templates {
                let f = &t[(k % 2) as usize];
                w.write(ts, f, (f.len() + 4) as u32)?;
                // 64-byte frames + 20 bytes preamble/IFG at 10 Gbit/s = 67.2 ns.
                ts += if n % 5 == 4 { 68 } else { 67 };
                n += 1;
            }
        }
        base += count;
    }
    w.finish()?;
    Ok(n)
}

/// One flow of the demo trace, as the generator made it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DemoFlow {
    /// "TCP", "UDP", "ICMP", "ICMPV6".
    pub l4: &'static str,
    /// Client address.
    pub src_ip: String,
    /// Client port.
    pub src_port: u16,
    /// Server address.
    pub dst_ip: String,
    /// Server port.
    pub dst_port: u16,
    /// VLAN id.
    pub vlan: u16,
    /// Client-to-server packets and captured bytes.
    pub c2s: (u64, u64),
    /// Server-to-client packets and captured bytes.
    pub s2c: (u64, u64),
    /// The application the payload belongs to (by construction).
    pub app: &'static str,
}

impl DemoFlow {
    /// A flow with no packets counted yet.
    fn new(
        l4: &'static str,
        (src_ip, src_port): (String, u16),
        (dst_ip, dst_port): (String, u16),
        vlan: u16,
        app: &'static str,
    ) -> Self {
        DemoFlow {
            l4,
            src_ip,
            src_port,
            dst_ip,
            dst_port,
            vlan,
            c2s: (0, 0),
            s2c: (0, 0),
            app,
        }
    }
}

/// Everything the demo trace holds besides its flows.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DemoExtras {
    /// Frames that carry no IP flow (ARP).
    pub not_ip: u64,
    /// Frames cut inside their IP header.
    pub truncated: u64,
}

struct Demo<W: Write> {
    w: PcapWriter<W>,
    ts: u64,
    flows: Vec<DemoFlow>,
}

impl<W: Write> Demo<W> {
    fn frame(&mut self, f: &[u8], gap_us: u64) -> io::Result<u64> {
        self.ts += gap_us * 1000;
        self.w.write(self.ts, f, f.len() as u32)?;
        Ok(f.len() as u64)
    }

    fn flow(&mut self, mut fl: DemoFlow, frames: &[(bool, Vec<u8>)]) -> io::Result<()> {
        for (i, (up, f)) in frames.iter().enumerate() {
            let len = self.frame(f, 150 + 37 * i as u64)?;
            let side = if *up { &mut fl.c2s } else { &mut fl.s2c };
            side.0 += 1;
            side.1 += len;
        }
        self.flows.push(fl);
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn tcp_session(
        &mut self,
        b: &FrameBuilder,
        c: [u8; 4],
        s: [u8; 4],
        cp: u16,
        sp: u16,
        app: &'static str,
        request: &[u8],
        response: &[u8],
    ) -> io::Result<()> {
        let t = |sport, dport, flags, seq, ack, payload| L4::Tcp {
            sport,
            dport,
            flags,
            seq,
            ack,
            payload,
        };
        let (cs, ss) = (1000u32, 5000u32);
        let rq = request.len() as u32;
        let rs = response.len() as u32;
        let frames = vec![
            (true, b.ipv4(c, s, &t(cp, sp, 0x02, cs, 0, &[]))),
            (false, b.ipv4(s, c, &t(sp, cp, 0x12, ss, cs + 1, &[]))),
            (true, b.ipv4(c, s, &t(cp, sp, 0x10, cs + 1, ss + 1, &[]))),
            (
                true,
                b.ipv4(c, s, &t(cp, sp, 0x18, cs + 1, ss + 1, request)),
            ),
            (
                false,
                b.ipv4(s, c, &t(sp, cp, 0x18, ss + 1, cs + 1 + rq, response)),
            ),
            (
                true,
                b.ipv4(c, s, &t(cp, sp, 0x11, cs + 1 + rq, ss + 1 + rs, &[])),
            ),
            (
                false,
                b.ipv4(s, c, &t(sp, cp, 0x11, ss + 1 + rs, cs + 2 + rq, &[])),
            ),
            (
                true,
                b.ipv4(c, s, &t(cp, sp, 0x10, cs + 2 + rq, ss + 2 + rs, &[])),
            ),
        ];
        self.flow(
            DemoFlow::new("TCP", (ip4(c), cp), (ip4(s), sp), b.vlan, app),
            &frames,
        )
    }
}

fn ip4(a: [u8; 4]) -> String {
    std::net::Ipv4Addr::from(a).to_string()
}

/// A DNS query (or response when `answer` is given) for `name`, type A.
fn dns(id: u16, name: &str, answer: Option<[u8; 4]>) -> Vec<u8> {
    dns_msg(id, name, 1, answer.as_ref().map(|a| &a[..]))
}

/// A DNS query of type `qtype` (1 A, 28 AAAA) for `name`, or its response with one answer of
/// the address `answer` (TTL an hour).
fn dns_msg(id: u16, name: &str, qtype: u16, answer: Option<&[u8]>) -> Vec<u8> {
    let mut m = Vec::new();
    m.extend_from_slice(&id.to_be_bytes());
    m.extend_from_slice(if answer.is_some() {
        &[0x81, 0x80]
    } else {
        &[0x01, 0x00]
    });
    m.extend_from_slice(&[0, 1, 0, answer.is_some() as u8, 0, 0, 0, 0]);
    for label in name.split('.') {
        m.push(label.len() as u8);
        m.extend_from_slice(label.as_bytes());
    }
    m.push(0);
    m.extend_from_slice(&qtype.to_be_bytes());
    m.extend_from_slice(&[0, 1]);
    if let Some(a) = answer {
        m.extend_from_slice(&[0xc0, 0x0c]);
        m.extend_from_slice(&qtype.to_be_bytes());
        m.extend_from_slice(&[0, 1, 0, 0, 0x0e, 0x10]);
        m.extend_from_slice(&(a.len() as u16).to_be_bytes());
        m.extend_from_slice(a);
    }
    m
}

/// Fill in the TCP or UDP checksum (RFC 793, RFC 768, RFC 8200 §8.1) of an untagged Ethernet
/// frame as [`FrameBuilder`] makes it (IPv4 without options, or IPv6 without extension
/// headers), whose checksum field is zero; other frames are left as they are.
pub fn fill_l4_checksum(f: &mut [u8]) {
    let (l4, proto, pseudo) = match f.get(12..14) {
        Some([0x08, 0x00]) if f.len() >= 34 => {
            let len = u16::from_be_bytes([f[16], f[17]]).saturating_sub(20);
            (34, f[23], (&f[26..34], len))
        }
        Some([0x86, 0xdd]) if f.len() >= 54 => {
            let len = u16::from_be_bytes([f[18], f[19]]);
            (54, f[20], (&f[22..54], len))
        }
        _ => return,
    };
    let at = match proto {
        6 => l4 + 16,
        17 => l4 + 6,
        _ => return,
    };
    let (addrs, len) = pseudo;
    if at + 2 > f.len() || l4 + len as usize > f.len() {
        return;
    }
    let mut sum = proto as u32 + len as u32;
    for w in addrs.chunks_exact(2) {
        sum += u16::from_be_bytes([w[0], w[1]]) as u32;
    }
    let mut c = csum(&f[l4..l4 + len as usize], sum);
    if proto == 17 && c == 0 {
        // UDP sends a computed zero as all ones: zero means "no checksum" (RFC 768).
        c = 0xffff;
    }
    f[at..at + 2].copy_from_slice(&c.to_be_bytes());
}

/// Write the demo trace (microsecond pcap) to `out`; returns the flows it holds and the extras.
pub fn demo<W: Write>(out: W) -> io::Result<(Vec<DemoFlow>, DemoExtras)> {
    let mut d = Demo {
        w: PcapWriter::new(out, 1, false)?,
        ts: 1_700_000_000_000_000_000,
        flows: Vec::new(),
    };
    let mut extras = DemoExtras::default();
    let b = FrameBuilder { vlan: 0 };
    let client = [192, 168, 1, 10];
    d.tcp_session(
        &b,
        client,
        [93, 184, 216, 34],
        51000,
        80,
        "HTTP",
        b"GET /index.html HTTP/1.1\r\nHost: example.com\r\nUser-Agent: wirespeed-demo/0.1\r\nAccept: */*\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 13\r\n\r\n<html></html>",
    )?;
    // A TLS 1.2 ClientHello record header and handshake type, then an opaque body.
    let mut hello = vec![
        0x16, 0x03, 0x01, 0x00, 0x2f, 0x01, 0x00, 0x00, 0x2b, 0x03, 0x03,
    ];
    hello.extend_from_slice(&[0x5a; 32]);
    hello.extend_from_slice(&[0x00, 0x00, 0x02, 0x13, 0x01, 0x01, 0x00]);
    d.tcp_session(
        &b,
        client,
        [142, 250, 74, 100],
        51001,
        443,
        "TLS",
        &hello,
        &[0x16, 0x03, 0x03, 0x00, 0x04, 0x02, 0x00, 0x00, 0x00],
    )?;
    d.tcp_session(
        &b,
        client,
        [10, 0, 0, 22],
        51002,
        22,
        "SSH",
        b"SSH-2.0-OpenSSH_9.6\r\n",
        b"SSH-2.0-OpenSSH_9.2p1 Debian-2\r\n",
    )?;
    d.tcp_session(
        &FrameBuilder { vlan: 100 },
        [10, 1, 0, 5],
        [10, 1, 0, 25],
        51003,
        25,
        "SMTP",
        b"EHLO demo.example\r\n",
        b"220 mail.example ESMTP ready\r\n",
    )?;
    // DNS over UDP: query and answer.
    let (q, r) = (
        dns(0x1234, "example.com", None),
        dns(0x1234, "example.com", Some([93, 184, 216, 34])),
    );
    let u = |sport, dport, payload| L4::Udp {
        sport,
        dport,
        payload,
    };
    let frames = vec![
        (true, b.ipv4(client, [8, 8, 8, 8], &u(53000, 53, &q))),
        (false, b.ipv4([8, 8, 8, 8], client, &u(53, 53000, &r))),
    ];
    d.flow(
        DemoFlow::new(
            "UDP",
            (ip4(client), 53000),
            ("8.8.8.8".into(), 53),
            0,
            "DNS",
        ),
        &frames,
    )?;
    // NTP client request (mode 3, version 4) and server reply (mode 4).
    let mut ntp_q = vec![0x23];
    ntp_q.resize(48, 0);
    let mut ntp_r = vec![0x24, 2];
    ntp_r.resize(48, 0);
    let frames = vec![
        (
            true,
            b.ipv4(client, [162, 159, 200, 1], &u(123, 123, &ntp_q)),
        ),
        (
            false,
            b.ipv4([162, 159, 200, 1], client, &u(123, 123, &ntp_r)),
        ),
    ];
    d.flow(
        DemoFlow::new(
            "UDP",
            (ip4(client), 123),
            ("162.159.200.1".into(), 123),
            0,
            "NTP",
        ),
        &frames,
    )?;
    // ICMP echo, three exchanges.
    let mut frames = Vec::new();
    for s in 0..3 {
        let e = |request| L4::Echo {
            request,
            id: 7,
            seq: s,
        };
        frames.push((true, b.ipv4(client, [1, 1, 1, 1], &e(true))));
        frames.push((false, b.ipv4([1, 1, 1, 1], client, &e(false))));
    }
    d.flow(
        DemoFlow::new("ICMP", (ip4(client), 0), ("1.1.1.1".into(), 0), 0, "ICMP"),
        &frames,
    )?;
    // IPv6 DNS query and answer.
    let (c6, s6): ([u8; 16], [u8; 16]) = (
        [
            0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10,
        ],
        [
            0x20, 0x01, 0x48, 0x60, 0x48, 0x60, 0, 0, 0, 0, 0, 0, 0, 0, 0x88, 0x88,
        ],
    );
    let frames = vec![
        (true, b.ipv6(c6, s6, &u(53001, 53, &q))),
        (false, b.ipv6(s6, c6, &u(53, 53001, &r))),
    ];
    d.flow(
        DemoFlow::new(
            "UDP",
            (std::net::Ipv6Addr::from(c6).to_string(), 53001),
            (std::net::Ipv6Addr::from(s6).to_string(), 53),
            0,
            "DNS",
        ),
        &frames,
    )?;
    // A UDP datagram (syslog, 1,600 bytes) fragmented in two: the second fragment has no ports
    // and must still count toward the flow.
    let mut msg = b"<34>Oct 11 22:14:15 demo su: 'su root' failed for user on /dev/pts/8 ".to_vec();
    msg.resize(1600, b'.');
    let (_, udp) = FrameBuilder::l4_bytes(&u(514, 514, &msg), false);
    let sys = [10, 0, 0, 50];
    let frames = vec![
        (true, b.ipv4_raw(client, sys, 17, &udp[..1480], 99, 0, true)),
        (
            true,
            b.ipv4_raw(client, sys, 17, &udp[1480..], 99, 1480, false),
        ),
    ];
    d.flow(
        DemoFlow::new("UDP", (ip4(client), 514), (ip4(sys), 514), 0, "Syslog"),
        &frames,
    )?;
    // ARP request: a frame with no IP flow.
    let mut arp = Vec::new();
    arp.extend_from_slice(&[0xff; 6]);
    arp.extend_from_slice(&ETH_SRC);
    arp.extend_from_slice(&[0x08, 0x06, 0, 1, 0x08, 0, 6, 4, 0, 1]);
    arp.extend_from_slice(&ETH_SRC);
    arp.extend_from_slice(&client);
    arp.extend_from_slice(&[0; 6]);
    arp.extend_from_slice(&[192, 168, 1, 1]);
    d.frame(&arp, 100)?;
    extras.not_ip += 1;
    // A frame cut inside its IPv4 header.
    let full = b.ipv4(client, [8, 8, 4, 4], &u(53002, 53, &q));
    d.frame(&full[..14 + 12], 100)?;
    extras.truncated += 1;
    d.w.finish()?;
    Ok((d.flows, extras))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ipv4_header_checksum_verifies() {
        let f = FrameBuilder { vlan: 0 }.ipv4(
            [1, 2, 3, 4],
            [5, 6, 7, 8],
            &L4::Udp {
                sport: 1,
                dport: 2,
                payload: b"x",
            },
        );
        // A correct header sums to 0xffff, i.e. checksum over it (with its checksum) is 0.
        assert_eq!(csum(&f[14..34], 0), 0);
        assert_eq!(f.len(), 14 + 20 + 8 + 1);
    }

    #[test]
    fn rfc1071_example() {
        // RFC 1071 section 3 example: 00 01 f2 03 f4 f5 f6 f7 sums to ddf2 (checksum 220d).
        assert_eq!(
            csum(&[0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7], 0),
            0x220d
        );
    }
}
