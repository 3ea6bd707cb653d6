//! DNS, and the two protocols that share its format: LLMNR (port 5355) and mDNS (port 5353).
//! Query name, type and (from the first response) response code. Over TCP, the two-byte
//! length prefix is checked.

use crate::meta::Field;
use crate::proto::label;
use crate::util::{starts_with_ci, Buf, Rd};
use crate::events::{EvCx, Tx, TxField, TxKind};
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
}

/// [`State::seen`]: a query.
const QUERY: u8 = 1;
/// [`State::seen`]: a response.
const RESPONSE: u8 = 2;
/// [`State::seen`]: a query's name was taken as the flow's.
const NAMED: u8 = 4;

fn probe(cx: &mut Cx<'_>) -> Probe {
    let mut d = cx.data;
    if cx.hints.transport == TCP {
        let Some(n) = d.get(..2).map(|b| u16::from_be_bytes([b[0], b[1]]) as usize) else {
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
    if strict && (!matches!(class & 0x7fff, 1 | 3 | 4 | 254 | 255) || qtype == 0) {
        return fail(cx);
    }
    // The root name is written "<root>", as tshark does.
    let qname: &[u8] = if n.is_empty() { b"<root>" } else { n.as_bytes() };
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
                    4 => <[u8; 4]>::try_from(rdata).ok().map(std::net::Ipv4Addr::from)?.into(),
                    16 => <[u8; 16]>::try_from(rdata).ok().map(std::net::Ipv6Addr::from)?.into(),
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
