//! DNS, and the two protocols that share its format: LLMNR (port 5355) and mDNS (port 5353).
//! Query name, type and (from the first response) response code. Over TCP, the two-byte
//! length prefix is checked.

use crate::events::{EvCx, Tx, TxField, TxKind};
use crate::meta::Field;
use crate::proto::label;
use crate::util::{starts_with_ci, Buf, Rd};
use crate::{Cx, Inspector, Label, Probe, TCP, UDP};

/// nDPI's DNS label.
pub static DNS: Label = label("DNS", "Network");
/// nDPI's LLMNR label.
pub static LLMNR: Label = label("LLMNR", "Network");
/// nDPI's mDNS label.
pub static MDNS: Label = label("MDNS", "Network");
/// nDPI's DNSCrypt label: the certificate query that starts a DNSCrypt session.
pub static DNSCRYPT: Label = label("DNScrypt", "Network");
/// nDPI's label for Avast's SecureDNS (DNSCrypt to Avast's resolvers).
pub static AVAST_SECURE_DNS: Label = label("AVASTSecureDNS", "Network");

/// The DNS / LLMNR / mDNS inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "dns",
    transports: UDP | TCP,
    ports: &[53, 5353, 5355],
    labels: &[&DNS, &LLMNR, &MDNS, &DNSCRYPT, &AVAST_SECURE_DNS],
    min_udp: 17,
    ports_required: false,
    probe,
};

/// Longest name kept (RFC 1035: 255 bytes on the wire).
const MAX_NAME: usize = 255;

/// Read a (possibly compressed) name at `at` of message `m` as dotted text into `out`.
/// Returns the offset after the name in the original position, or None if malformed.
pub fn name(m: &[u8], mut at: usize, out: &mut Buf<MAX_NAME>) -> Option<usize> {
    let mut end = None;
    let mut hops = 0;
    let mut labels = 0;
    loop {
        let len = *m.get(at)? as usize;
        match len & 0xc0 {
            0x00 => {
                if len == 0 {
                    return Some(end.unwrap_or(at + 1));
                }
                labels += 1;
                if labels > 127 {
                    return None;
                }
                let l = m.get(at + 1..at + 1 + len)?;
                if !out.is_empty() {
                    out.push(b".");
                }
                out.push(l);
                at += 1 + len;
            }
            0xc0 => {
                let p = (len & 0x3f) << 8 | *m.get(at + 1)? as usize;
                hops += 1;
                // Pointers go backwards and their number is capped: no loops.
                if hops > 16 || p >= at {
                    return None;
                }
                end.get_or_insert(at + 2);
                at = p;
            }
            _ => return None,
        }
    }
}

/// At most this many answer records are read from one response.
pub const MAX_ANSWERS: usize = 32;

/// At most this many questions are skipped before the answers; a response saying more is
/// refused by [`answers`].
const MAX_QUESTIONS: u16 = 4;

/// What a DNS response's answer section says: called with each name the answer chain goes
/// through (the question's name first, then each CNAME record's target, in order) and each
/// A/AAAA address with its TTL, in record order.
pub trait AnswerSink {
    /// A name (dotted text, as [`name`](fn@name) writes it; the root name is empty).
    fn name(&mut self, name: &[u8]);
    /// An address of an A or AAAA record, and its TTL in seconds (RFC 2181 §8: a TTL with the
    /// top bit set is given as 0).
    fn addr(&mut self, addr: std::net::IpAddr, ttl: u32);
}

/// Read the DNS message `msg` (UDP payload; for DNS over TCP the caller strips the two-byte
/// length) if it is a response (QR set) to a standard query (OPCODE 0) with RCODE 0 and at
/// least one question and one answer: the question's name, then the answer records (at most
/// [`MAX_ANSWERS`]; class IN only; other types skipped by their RDLENGTH). Only the first
/// question is read; up to 3 more are skipped, and a message with more than 4 is refused.
/// Returns false, having called nothing or only part, if it is not such a response or is
/// malformed (truncated record, RDLENGTH beyond the message, A with RDLENGTH != 4, AAAA != 16,
/// CNAME target not filling its RDLENGTH, bad name: a damaged label, a compression pointer that
/// does not point backwards, more than 16 pointers, dotted text over 255 bytes) — what was read
/// before the damage may already have been given to the sink. Reads nothing past the message
/// and allocates nothing; the work is bounded by the caps above.
pub fn answers(msg: &[u8], sink: &mut impl AnswerSink) -> bool {
    answers_inner(msg, sink).is_some()
}

fn answers_inner(msg: &[u8], sink: &mut impl AnswerSink) -> Option<()> {
    const A: u16 = 1;
    const CNAME: u16 = 5;
    const AAAA: u16 = 28;
    const IN: u16 = 1;
    let mut r = Rd::new(msg);
    let (_id, flags, qd, an) = (r.u16()?, r.u16()?, r.u16()?, r.u16()?);
    let qr = flags & 0x8000 != 0;
    let opcode = (flags >> 11) & 0xf;
    let rcode = flags & 0xf;
    if !qr || opcode != 0 || rcode != 0 || qd == 0 || qd > MAX_QUESTIONS || an == 0 {
        return None;
    }
    // The question's name, read whole (and the other questions skipped) before it is given.
    let mut qname = Buf::<MAX_NAME>::default();
    let mut at = whole_name(msg, 12, &mut qname)?;
    at = at.checked_add(4).filter(|&e| e <= msg.len())?;
    for _ in 1..qd {
        at = whole_name(msg, at, &mut Buf::default())?;
        at = at.checked_add(4).filter(|&e| e <= msg.len())?;
    }
    sink.name(qname.as_bytes());
    for _ in 0..usize::from(an).min(MAX_ANSWERS) {
        // The owner name is only skipped (the chain is the question's name and the targets).
        at = whole_name(msg, at, &mut Buf::default())?;
        let mut r = Rd::new(msg.get(at..)?);
        let (rtype, class, ttl) = (r.u16()?, r.u16()?, r.u32()?);
        let rdata_at = at + 10;
        let rdata = r.vec16()?;
        let end = rdata_at + rdata.len();
        let ttl = if ttl & 0x8000_0000 != 0 { 0 } else { ttl };
        if class == IN {
            match rtype {
                A => {
                    let b: [u8; 4] = rdata.try_into().ok()?;
                    sink.addr(std::net::Ipv4Addr::from(b).into(), ttl);
                }
                AAAA => {
                    let b: [u8; 16] = rdata.try_into().ok()?;
                    sink.addr(std::net::Ipv6Addr::from(b).into(), ttl);
                }
                CNAME => {
                    let mut target = Buf::<MAX_NAME>::default();
                    if whole_name(msg, rdata_at, &mut target)? != end {
                        return None;
                    }
                    sink.name(target.as_bytes());
                }
                _ => {}
            }
        }
        at = end;
    }
    Some(())
}

/// [`name`], refusing a name whose text did not fit (a name of more than 255 bytes on the wire).
fn whole_name(m: &[u8], at: usize, out: &mut Buf<MAX_NAME>) -> Option<usize> {
    let end = name(m, at, out)?;
    (!out.lost).then_some(end)
}

/// Per-flow state.
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
struct State {
    /// What was seen: [`QUERY`], [`RESPONSE`], [`NAMED`].
    seen: u8,
    /// How far nDPI's DNS dissector follows the flow: [`ND_MAIN`], [`ND_EXTRA`], [`ND_DONE`].
    nd: u8,
    /// Payload packets nDPI's main detection path has shown its dissector (saturating).
    nd_pkts: u8,
    /// Packets left in nDPI's extra dissection after the query that classified the flow.
    nd_left: u8,
    /// nDPI's `query_type` of the flow, big-endian (0: none yet), see [`NdMsg::zero_ttl`].
    nd_qtype: [u8; 2],
    /// A and AAAA answers nDPI stored for the flow (`num_rsp_addr`).
    nd_addrs: u8,
    /// nDPI's verdicts so far: [`F_ERROR_CODE`], [`F_INVALID_CHARS`], [`F_MALFORMED`],
    /// [`F_ZERO_TTL`] (written as `dns_flags`).
    flags: u8,
    /// The flags last written as `dns_flags`.
    shown: u8,
}

/// [`State::seen`]: a query.
const QUERY: u8 = 1;
/// [`State::seen`]: a response.
const RESPONSE: u8 = 2;
/// [`State::seen`]: a query's name was taken as the flow's.
const NAMED: u8 = 4;

// ---- nDPI's verdicts on the flow's messages (`dns_flags`) ----
//
// nDPI's DNS dissector (src/lib/protocols/dns.c at ntop/nDPI 3c626c38, the 2024 code of the
// corpus's nDPI 4.11-dev) reads a flow's messages until it classifies the flow: a query, or a
// response; a query then opens its "extra dissection" of at most 5 more packets, ended early by
// a response with records. On each message it reads it finds, as its risks:
// * Malformed Packet: a query whose header it refuses once the flow is classified ("Invalid DNS
//   Header"; on an unclassified flow such a query only means "not DNS"), or a question of any
//   message with no room for its type and class, a type of 0, or a name of more than 253 bytes
//   on the wire ("Invalid DNS Query Lenght");
// * Minor Issues: an answer record with TTL 0 ("DNS Record with zero TTL") in the answers it
//   walks, in a response whose counts it takes for a reply;
// * Non-Printable/Invalid Chars Detected: a byte other than a letter, digit, '-' or '_' in
//   the labels it copies of the first question's name (`ndpi_grab_dns_name`: from offset 12,
//   at most 255 characters, labels joined by '.'), in any message it reads, queries and
//   responses alike; a name it then drops (a compressed label, one running to the message's
//   end) still counts what it copied before. mDNS (port 5353 either side) is not checked;
// * Error Code: a response (QR set: what nDPI takes for one) with a non-zero RCODE.
// What follows reads the messages as that dissector does, its offsets included (it does not
// follow compression pointers and resumes where its own walk left off), so that the flags say
// what nDPI would say, not what the message is.

/// [`State::flags`]: a message nDPI's DNS dissector finds malformed (`m`).
const F_MALFORMED: u8 = 1;
/// [`State::flags`]: an answer record with TTL 0 that nDPI's answer walk reads (`z`).
const F_ZERO_TTL: u8 = 2;
/// [`State::flags`]: a byte nDPI refuses in the first question's name it copies (`i`).
const F_INVALID_CHARS: u8 = 4;
/// [`State::flags`]: a response with a non-zero RCODE (`e`).
const F_ERROR_CODE: u8 = 8;
/// Each flag's letter in `dns_flags`, in the order written (alphabetical).
const FLAG_LETTERS: [(u8, u8); 4] = [
    (F_ERROR_CODE, b'e'),
    (F_INVALID_CHARS, b'i'),
    (F_MALFORMED, b'm'),
    (F_ZERO_TTL, b'z'),
];

/// [`State::nd`]: nDPI has not classified the flow; its main path shows it each message.
const ND_MAIN: u8 = 0;
/// [`State::nd`]: a query classified the flow; the extra dissection goes on.
const ND_EXTRA: u8 = 1;
/// [`State::nd`]: nDPI's DNS dissector reads no more of the flow.
const ND_DONE: u8 = 2;
/// Packets of nDPI's extra dissection after a query (`max_extra_packets_to_check`).
const ND_EXTRA_PACKETS: u8 = 5;
/// nDPI's `NDPI_MAX_DNS_REQUESTS`: the most questions (and records of a section) it accepts.
const ND_MAX_COUNT: u16 = 16;
/// nDPI's `MAX_NUM_DNS_RSP_ADDRESSES`: the A/AAAA answers it stores for a flow.
const ND_MAX_ADDRS: u8 = 8;

/// What nDPI's dissector made of one message.
enum Nd {
    /// Not read (not on its ports, or no byte past the header).
    Skipped,
    /// The dissector excluded itself (a unicast mDNS/LLMNR message, a refused query header).
    Excluded,
    /// A query; its extra dissection follows unless it named the flow LLMNR.
    Query { extra: bool },
    /// A response with this many records (its three counts summed, as a byte).
    Response { records: u8 },
}

/// Follow the flow as nDPI's DNS dissector does, adding its verdicts to [`State::flags`].
fn nd_track(cx: &mut Cx<'_>) {
    let h = cx.hints;
    let (sport, dport, dst) = match h.dir {
        crate::Dir::ToServer => (h.client_port, h.server_port, h.server_ip),
        crate::Dir::ToClient => (h.server_port, h.client_port, h.client_ip),
    };
    let data = cx.data;
    let st = cx.state::<State>();
    let m = NdMsg {
        p: data,
        po: if h.transport == TCP { 2 } else { 0 },
        udp: h.transport == UDP,
        sport,
        dport,
        dst,
    };
    match st.nd {
        ND_MAIN => {
            st.nd_pkts = st.nd_pkts.saturating_add(1);
            match m.read(false, st) {
                Nd::Query { extra: true } => {
                    st.nd = ND_EXTRA;
                    st.nd_left = ND_EXTRA_PACKETS;
                }
                Nd::Query { extra: false } | Nd::Response { .. } | Nd::Excluded => st.nd = ND_DONE,
                // It gives up on a flow it has not classified by its fourth packet.
                Nd::Skipped if st.nd_pkts > 3 => st.nd = ND_DONE,
                Nd::Skipped => {}
            }
        }
        ND_EXTRA => {
            let r = m.read(true, st);
            st.nd_left = st.nd_left.saturating_sub(1);
            if st.nd_left == 0 || matches!(r, Nd::Response { records } if records != 0) {
                st.nd = ND_DONE;
            }
        }
        _ => {}
    }
}

/// Rewrite `dns_flags` when [`State::flags`] changed since it was last written.
fn show_flags(cx: &mut Cx<'_>) {
    let st = cx.state::<State>();
    if st.flags == st.shown {
        return;
    }
    st.shown = st.flags;
    let all = st.flags;
    cx.meta.set_letters(Field::DnsFlags, all, &FLAG_LETTERS);
}

/// One message as nDPI's DNS dissector sees it.
struct NdMsg<'a> {
    /// The payload (over TCP with its two-byte length).
    p: &'a [u8],
    /// Where the DNS header starts: 2 over TCP.
    po: usize,
    udp: bool,
    /// Source and destination ports and address of this packet.
    sport: u16,
    dport: u16,
    dst: std::net::IpAddr,
}

impl NdMsg<'_> {
    fn u16_at(&self, i: usize) -> u16 {
        self.p
            .get(i..i + 2)
            .map_or(0, |b| u16::from_be_bytes([b[0], b[1]]))
    }

    /// Read the message; `classified`: nDPI classified the flow before it.
    fn read(&self, classified: bool, st: &mut State) -> Nd {
        let (p, po) = (self.p, self.po);
        // A query to the mDNS or LLMNR port that is not sent to the group is not theirs (it
        // looks at flags and question count only).
        if self.udp
            && ((self.dport == 5353 && !mdns_group(self.dst))
                || (self.dport == 5355 && !llmnr_group(self.dst)))
            && p.len() > 5
            && self.u16_at(2) != 0
            && self.u16_at(4) != 0
        {
            return Nd::Excluded;
        }
        let mdns = self.sport == 5353 || self.dport == 5353;
        let ports = self.sport == 53 || self.dport == 53 || mdns || self.dport == 5355;
        if !ports || p.len() <= 12 + po {
            return Nd::Skipped;
        }
        let [flags, qd, an, ns, ar] = [0, 1, 2, 3, 4].map(|k| self.u16_at(po + 2 + 2 * k));
        let query = flags & 0x8000 == 0;
        if query {
            // Dynamic update, standard query, inverse query, or no records.
            let good = qd <= ND_MAX_COUNT
                && (flags & 0x2800 == 0x2800
                    || flags & 0xfcf0 == 0
                    || flags & 0xfcff == 0x0800
                    || (an == 0 && ns == 0));
            if !good {
                if classified {
                    st.flags |= F_MALFORMED;
                }
                return Nd::Excluded;
            }
            if let Some((t, _)) = self.first_type(po + 12) {
                st.nd_qtype = t.to_be_bytes();
            }
        } else {
            if flags & 0x000f != 0 {
                st.flags |= F_ERROR_CODE;
            }
            if self.zero_ttl(qd, an, ns, ar, st) {
                st.flags |= F_ZERO_TTL;
            }
        }
        if !self.questions_fit(qd) {
            st.flags |= F_MALFORMED;
        }
        // The name it takes as the flow's (none if a label is damaged), its characters checked
        // but on mDNS.
        let (named, _, valid) = self.grab(po + 12, 255);
        if !valid && !mdns {
            st.flags |= F_INVALID_CHARS;
        }
        if query {
            // The protocol the ports give: a named LLMNR query is not followed further.
            let by_port = |port: u16| match port {
                53 | 5353 | 5355 => port,
                _ => 0,
            };
            let proto = match by_port(self.sport) {
                0 => by_port(self.dport),
                p => p,
            };
            Nd::Query {
                extra: !(named > 0 && proto == 5355),
            }
        } else {
            let records = u32::from(an) + u32::from(ns) + u32::from(ar);
            Nd::Response {
                records: records as u8,
            }
        }
    }

    /// The two bytes after the first zero byte from `x` on (nDPI's guess at the query type),
    /// and the offset after them.
    fn first_type(&self, mut x: usize) -> Option<(u16, usize)> {
        while x + 2 < self.p.len() {
            if self.p.get(x) == Some(&0) {
                return Some((self.u16_at(x + 1), x + 3));
            }
            x += 1;
        }
        None
    }

    /// nDPI's `getNameLength` at `i`: label lengths plus one each, to a zero byte (1) or a byte
    /// 0xc0 (2); what it had summed when the message ends or a byte 0xff comes.
    /// Past a record's name at `x` as nDPI's walks skip it (the message is `l` bytes): None
    /// where the walk stops (fewer than 7 bytes left, or a name of length 0 as `name_len`
    /// reads it).
    fn record_name(&self, x: usize, l: usize) -> Option<usize> {
        if x + 6 >= l {
            return None;
        }
        match self.name_len(x) as u16 {
            0 => None,
            n => Some(x + usize::from(n)),
        }
    }

    fn name_len(&self, mut i: usize) -> usize {
        let mut sum = 0usize;
        while let Some(&b) = self.p.get(i) {
            match b {
                0 => return sum + 1,
                0xc0 => return sum + 2,
                0xff => return sum,
                _ => {
                    let off = usize::from(b) + 1;
                    sum += off;
                    i += off;
                }
            }
        }
        sum
    }

    /// nDPI's reading of a name at `off` into a buffer of `max` characters: the characters it
    /// kept (0 if a label is compressed or runs to the end), where it stopped, and whether every
    /// byte it copied on the way (those of a name it then dropped included) is a letter, digit,
    /// '-' or '_'.
    fn grab(&self, mut off: usize, max: usize) -> (usize, usize, bool) {
        let l = self.p.len();
        let mut j = 0usize;
        let mut valid = true;
        while j < max && off < l && self.p.get(off) != Some(&0) {
            let cl = usize::from(self.p.get(off).copied().unwrap_or(0));
            off += 1;
            if cl & 0xc0 != 0 || off + cl >= l {
                j = 0;
                break;
            }
            if j != 0 {
                j += 1;
            }
            let take = cl.min(max.saturating_sub(j));
            let copied = self.p.get(off..off + take).unwrap_or_default();
            valid &= copied
                .iter()
                .all(|&c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_');
            off += take;
            j += take;
        }
        (j, off, valid)
    }

    /// nDPI's check of the questions: each must leave room for type and class, have a type
    /// other than 0, and a name of at most 253 bytes on the wire (a pointer ends the name).
    fn questions_fit(&self, qd: u16) -> bool {
        let (p, l) = (self.p, self.p.len());
        let mut idx = self.po + 12;
        let mut n = 0;
        while n < qd && idx < l {
            let (mut i, mut total) = (idx, 0usize);
            while let Some(&b) = p.get(i) {
                if b == 0 {
                    total += 1;
                    break;
                }
                let ptr = b & 0xc0 == 0xc0;
                let len = if ptr { 0 } else { usize::from(b) };
                i += len + 1;
                total += len + 1;
                if ptr {
                    break;
                }
            }
            if i + 4 > l || self.u16_at(i + 1) == 0 || total > 253 {
                return false;
            }
            idx = i + 5;
            n += 1;
        }
        true
    }

    /// nDPI's answer walk of a response: does an answer record it reads have TTL 0? It first
    /// looks for the query type after the first zero byte when the flow has none (a response
    /// whose query it did not see: its walk then starts past that type), skips the questions
    /// by its [`NdMsg::name_len`], and stops at the first record that does not fit, or once it
    /// stored a PTR name or its last A/AAAA address when the message has no additional record.
    fn zero_ttl(&self, qd: u16, an: u16, ns: u16, ar: u16, st: &mut State) -> bool {
        let l = self.p.len();
        let mut x = self.po + 12;
        if st.nd_qtype == [0, 0] {
            match self.first_type(x) {
                Some((t, after)) => {
                    st.nd_qtype = t.to_be_bytes();
                    x = after;
                }
                None => x = x.max(l.saturating_sub(2)),
            }
        }
        let some = |n: u16| (1..=ND_MAX_COUNT).contains(&n);
        if !(some(qd) && (some(an) || some(ns) || some(ar))) {
            return false;
        }
        for _ in 0..qd {
            let Some(after) = self.record_name(x, l) else {
                break;
            };
            x = after;
            if x + 8 >= l {
                break;
            }
            x += 4;
        }
        let (mut zero, mut found) = (false, false);
        for _ in 0..an {
            let Some(after) = self.record_name(x, l) else {
                break;
            };
            x = after;
            if x + 8 >= l {
                break;
            }
            let rtype = self.u16_at(x);
            x += 2;
            let ttl = self
                .p
                .get(x + 2..x + 6)
                .map_or(1, |b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]));
            zero |= ttl == 0;
            if x + 12 <= l {
                x += 6;
                let len = usize::from(self.u16_at(x));
                x += 2;
                if x + len <= l {
                    match (rtype, len) {
                        (12, _) if !found => {
                            x = self.grab(x, 63).1;
                            found = true;
                        }
                        (1, 4) | (28, 16) if !found => {
                            if st.nd_addrs < ND_MAX_ADDRS {
                                st.nd_addrs += 1;
                            }
                            found = st.nd_addrs >= ND_MAX_ADDRS;
                        }
                        _ => {}
                    }
                    x += len;
                }
            }
            if found && ar == 0 {
                break;
            }
        }
        zero
    }
}

/// mDNS's group: 224.0.0.251 or ff02::fb.
fn mdns_group(a: std::net::IpAddr) -> bool {
    match a {
        std::net::IpAddr::V4(v) => v.octets() == [224, 0, 0, 251],
        std::net::IpAddr::V6(v) => v.segments() == [0xff02, 0, 0, 0, 0, 0, 0, 0xfb],
    }
}

/// LLMNR's group: 224.0.0.252 or ff02::1:3.
fn llmnr_group(a: std::net::IpAddr) -> bool {
    match a {
        std::net::IpAddr::V4(v) => v.octets() == [224, 0, 0, 252],
        std::net::IpAddr::V6(v) => v.segments() == [0xff02, 0, 0, 0, 0, 0, 1, 3],
    }
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    nd_track(cx);
    let r = inspect(cx);
    // Whatever the answer: nDPI takes for DNS a message on its ports that this inspector may
    // refuse (a damaged question), and the flow may still be DNS by its port. The flags are
    // only set on messages nDPI read as DNS.
    show_flags(cx);
    // A message this inspector refuses does not end nDPI's extra dissection: its next
    // messages may still add flags.
    if cx.state::<State>().nd == ND_EXTRA {
        cx.want_more();
    }
    r
}

fn inspect(cx: &mut Cx<'_>) -> Probe {
    let mut d = cx.data;
    if cx.hints.transport == TCP {
        let Some(n) = d
            .get(..2)
            .map(|b| u16::from_be_bytes([b[0], b[1]]) as usize)
        else {
            return Probe::NotForUs;
        };
        d = d.get(2..).unwrap_or(&[]);
        if n < 12 || n < d.len() {
            return if cx.state::<State>().seen != 0 {
                Probe::Certain(label_of(cx))
            } else {
                Probe::NotForUs
            };
        }
    }
    let mut r = Rd::new(d);
    let (Some(id), Some(flags), Some(qd), Some(an), Some(ns), Some(ar)) =
        (r.u16(), r.u16(), r.u16(), r.u16(), r.u16(), r.u16())
    else {
        return if cx.state::<State>().seen != 0 {
            Probe::Certain(label_of(cx))
        } else {
            Probe::NotForUs
        };
    };
    let qr = flags >> 15 != 0;
    let opcode = (flags >> 11) & 0xf;
    let z = flags & 0x0040 != 0;
    let mdns = cx.hints.port(5353);
    // Off the DNS ports the header must be plausible; on them a damaged one is still DNS.
    let strict = !(cx.hints.port(53) || mdns || cx.hints.port(5355));
    let odd = opcode > 5 || opcode == 3 || (z && !mdns);
    // Only the first question is read, so on the DNS ports a damaged count (as in fuzzed
    // captures, where tshark still dissects the question) does not hide the name.
    let huge = qd > 256 || an > 256 || ns > 256 || ar > 256;
    if strict && (odd || huge) {
        return fail(cx);
    }
    if qd == 0 && !(qr && an > 0) {
        return fail(cx);
    }
    let mut n = Buf::<MAX_NAME>::default();
    let Some(after) = name(d, 12, &mut n) else {
        cx.malformed();
        if !strict && !odd && !huge && unknown_extended(d, 12) {
            // tshark writes such a name "<Unknown extended label>" (and nothing of it), a fixed
            // text like its "<root>": so do we, on the DNS ports and under a plausible header
            // (not for encrypted bytes on them: DNSCrypt on 5353), until a readable query shows.
            cx.set(Field::DnsQuery, b"<Unknown extended label>");
            let st = cx.state::<State>();
            st.seen |= if qr { RESPONSE } else { QUERY };
            if st.seen & (RESPONSE | NAMED) != RESPONSE | NAMED {
                cx.want_more();
            }
            return Probe::Certain(label_of(cx));
        }
        // On the DNS ports a damaged question (fuzz-2006-06-26-2594.pcap) rules nothing out:
        // the flow's next message is read as tshark reads it.
        if !strict && cx.state::<State>().seen == 0 {
            return Probe::Unsure;
        }
        return fail(cx);
    };
    let mut r = Rd::new(d.get(after..).unwrap_or(&[]));
    let (Some(qtype), Some(class)) = (r.u16(), r.u16()) else {
        return fail(cx);
    };
    if !matches!(class & 0x7fff, 1 | 3 | 4 | 254 | 255) || qtype == 0 {
        if strict {
            return fail(cx);
        }
        // On the DNS ports too, a first question of no class a resolver uses, or of type 0,
        // does not name the flow: it stays Unsure (the port names it if nothing else claims
        // it), so that what tunnels and VPNs carry on udp/53 and tcp/53 can be claimed. With
        // every corpus port moved to 53 this inspector named OpenVPN, WireGuard, TLS, QUIC,
        // MySQL and 602 SLP flows DNS, their bytes read as a header and a "question". A
        // damaged header whose question is whole (fuzzed captures) still names the flow.
        if cx.state::<State>().seen == 0 {
            return Probe::Unsure;
        }
    }
    // The root name is written "<root>", as tshark does.
    let qname: &[u8] = if n.is_empty() {
        b"<root>"
    } else {
        n.as_bytes()
    };
    if qd > 0 {
        // Every question's name, each once (a response's too: its query may not have been
        // captured): a 5-tuple that a resolver keeps carries several transactions.
        cx.meta.append(Field::DnsNames, qname, b',');
    }
    if !qr && qd > 0 && cx.state::<State>().seen & NAMED == 0 {
        // A query's name is the flow's name, over one taken from a response seen first.
        cx.meta.replace(Field::DnsQuery, qname);
        let mut t = crate::util::Buf::<8>::default();
        t.num(u32::from(qtype));
        cx.meta.replace(Field::DnsQtype, t.as_bytes());
        cx.state::<State>().seen |= NAMED;
    } else if qd > 0 && cx.meta.get(Field::DnsQuery).is_none() {
        // A response's question (an mDNS announcement has none: its answers are not queries).
        cx.set(Field::DnsQuery, qname);
        cx.meta.set_num(Field::DnsQtype, u32::from(qtype));
    }
    if qr {
        cx.meta.set_num(Field::DnsRcode, u32::from(flags & 0xf));
        cx.state::<State>().seen |= RESPONSE;
    } else {
        cx.state::<State>().seen |= QUERY;
    }
    let mut l = label_of(cx);
    if starts_with_ci(n.as_bytes(), b"2.dnscrypt-cert.") {
        l = &DNSCRYPT;
    }
    if ends_with_ci(n.as_bytes(), b"securedns.avast.com") {
        l = &AVAST_SECURE_DNS;
    }
    if let Some(ev) = cx.events() {
        let q = (qd > 0).then_some(Question {
            name: qname,
            qtype,
            qclass: class & 0x7fff,
            end: after + 4,
        });
        event(ev, d, id, flags, qd, an, q);
    }
    // Keep listening, within the budget: later transactions on the 5-tuple add their names
    // (and, when the run writes them, their transaction events past it).
    cx.want_more();
    cx.want_events();
    Probe::Certain(l)
}

/// A message's first question, as the probe read it.
struct Question<'a> {
    name: &'a [u8],
    qtype: u16,
    qclass: u16,
    /// Offset after it.
    end: usize,
}

/// The transaction event of the DNS message `m` (`--events`): a query opens one, the response
/// with its id on the flow completes it (response code, flags, answers); a response whose query
/// was not seen is an event alone, with its question.
fn event(
    ev: &mut EvCx<'_>,
    m: &[u8],
    id: u16,
    flags: u16,
    qd: u16,
    an: u16,
    q: Option<Question<'_>>,
) {
    let bit = |b: u16| u64::from(flags >> b & 1);
    // AA, TC, RD, RA as bits 0 to 3.
    let dflags = bit(10) | bit(9) << 1 | bit(8) << 2 | bit(7) << 3;
    let question = |t: &mut Tx| {
        t.set_num(TxField::DnsId, u64::from(id));
        if let Some(q) = &q {
            t.set_text(TxField::DnsQuery, q.name);
            t.set_num(TxField::DnsQtype, u64::from(q.qtype));
            t.set_num(TxField::DnsQclass, u64::from(q.qclass));
        }
    };
    if flags & 0x8000 == 0 {
        if let Some(t) = ev.open(TxKind::Dns, u32::from(id)) {
            question(t);
            t.set_num(TxField::DnsFlags, dflags);
        }
        return;
    }
    let Some((t, was_open)) = ev.answer_or_add(TxKind::Dns, Some(u32::from(id))) else {
        return;
    };
    if !was_open {
        question(t);
    }
    t.set_num(TxField::DnsRcode, u64::from(flags & 0xf));
    t.set_num(TxField::DnsFlags, dflags);
    // The answers follow the questions (an mDNS announcement has none: its records start at 12).
    let mut at = q.as_ref().map_or(Some(12), |q| Some(q.end));
    for _ in 1..qd.min(MAX_QUESTIONS) {
        at = at
            .and_then(|a| whole_name(m, a, &mut Buf::default()))
            .and_then(|a| a.checked_add(4));
    }
    if let Some(at) = at {
        answer_texts(m, at, an, t);
    }
}

/// Each answer record's data as text and its TTL, into `t` (at most
/// [`crate::events::MAX_ANSWERS`]): A and AAAA addresses, CNAME, PTR, NS, DNAME and MX targets,
/// a TXT record's first string; other types are skipped. Stops at the first damage.
fn answer_texts(m: &[u8], mut at: usize, an: u16, t: &mut Tx) -> Option<()> {
    let mut kept = 0;
    for _ in 0..an.min(256) {
        if kept >= crate::events::MAX_ANSWERS {
            break;
        }
        at = whole_name(m, at, &mut Buf::default())?;
        let mut r = Rd::new(m.get(at..)?);
        let (rtype, _class, ttl) = (r.u16()?, r.u16()?, r.u32()?);
        let rdata_at = at + 10;
        let rdata = r.vec16()?;
        at = rdata_at + rdata.len();
        let ttl = if ttl & 0x8000_0000 != 0 { 0 } else { ttl };
        let mut text = Buf::<MAX_NAME>::default();
        match rtype {
            1 | 28 => {
                let ip: std::net::IpAddr = match rdata.len() {
                    4 => <[u8; 4]>::try_from(rdata)
                        .ok()
                        .map(std::net::Ipv4Addr::from)?
                        .into(),
                    16 => <[u8; 16]>::try_from(rdata)
                        .ok()
                        .map(std::net::Ipv6Addr::from)?
                        .into(),
                    _ => continue,
                };
                let mut b = [0u8; 46];
                let mut c = std::io::Cursor::new(&mut b[..]);
                let _ = std::io::Write::write_fmt(&mut c, format_args!("{ip}"));
                let n = c.position() as usize;
                text.push(b.get(..n).unwrap_or_default());
            }
            2 | 5 | 12 | 39 => {
                whole_name(m, rdata_at, &mut text)?;
            }
            15 => {
                whole_name(m, rdata_at + 2, &mut text)?;
            }
            16 => {
                let mut r = Rd::new(rdata);
                text.push(r.vec8().unwrap_or_default());
            }
            _ => continue,
        }
        let v: &[u8] = match (text.is_empty(), rtype) {
            (true, 16) => continue,
            (true, _) => b"<root>",
            _ => text.as_bytes(),
        };
        // A TTL for each answer kept, so the two lists stay aligned.
        if t.set_text(TxField::DnsAnswer, v) {
            t.set_num(TxField::DnsTtl, u64::from(ttl));
        }
        kept += 1;
    }
    Some(())
}

/// Does the name at `at` of `m` reach an RFC 2673 extended label of a type other than a bit
/// string (a first byte of 0x40 to 0x7f, not 0x41) before any other damage? Pointers are
/// followed as in [`name`].
fn unknown_extended(m: &[u8], mut at: usize) -> bool {
    let (mut hops, mut labels) = (0, 0);
    loop {
        let Some(&len) = m.get(at) else {
            return false;
        };
        match len & 0xc0 {
            0x00 => {
                labels += 1;
                let len = usize::from(len);
                if len == 0 || labels > 127 || m.get(at + 1..at + 1 + len).is_none() {
                    return false;
                }
                at += 1 + len;
            }
            0x40 => return len != 0x41,
            0xc0 => {
                let Some(&lo) = m.get(at + 1) else {
                    return false;
                };
                let p = usize::from(len & 0x3f) << 8 | usize::from(lo);
                hops += 1;
                if hops > 16 || p >= at {
                    return false;
                }
                at = p;
            }
            _ => return false,
        }
    }
}

fn ends_with_ci(b: &[u8], p: &[u8]) -> bool {
    b.len() >= p.len() && b[b.len() - p.len()..].eq_ignore_ascii_case(p)
}

fn fail(cx: &mut Cx<'_>) -> Probe {
    if cx.state::<State>().seen != 0 {
        Probe::Certain(label_of(cx))
    } else {
        Probe::NotForUs
    }
}

fn label_of(cx: &Cx<'_>) -> &'static Label {
    if cx.hints.port(5353) {
        &MDNS
    } else if cx.hints.port(5355) {
        &LLMNR
    } else {
        &DNS
    }
}

#[cfg(test)]
mod tests;
