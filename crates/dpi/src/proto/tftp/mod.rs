//! TFTP (RFC 1350, options RFC 2347-2349, 7440). A read or write request (opcode 1 or 2:
//! printable file name, NUL, mode `netascii`/`octet`/`mail`, NUL, then option pairs) or an
//! option acknowledgement (opcode 6: known option names with numeric values) names the flow at
//! once. The transfer itself runs between two fresh ports, so a data flow is recognised by its
//! shape in both directions: the first packet is DATA block 1 (after a read request) or ACK
//! block 0 (after a write request), and the other side's first packet answers it with ACK 1,
//! DATA 1 or an ERROR. A flow is asked again only while every earlier packet fitted (any other
//! packet rules TFTP out), so the answer confirms the opening.

use crate::proto::label;
use crate::{Cx, Dir, Inspector, Label, Probe, UDP};

/// nDPI's TFTP label.
pub static LABEL: Label = label("TFTP", "DataTransfer");

/// The TFTP inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "tftp",
    transports: UDP,
    ports: &[69],
    labels: &[&LABEL],
    min_udp: 4,
    ports_required: false,
    probe,
};

/// Largest DATA payload (RFC 2348: block size at most 65464).
const MAX_BLOCK: usize = 65464;
/// Most option pairs read from a request or OACK.
const MAX_OPTIONS: usize = 16;

/// The NUL-terminated string at the start of `d`, if it is printable ASCII of 1..=`max`
/// bytes, and what follows its NUL.
fn cstr(d: &[u8], max: usize) -> Option<(&[u8], &[u8])> {
    let end = d.iter().take(max + 1).position(|&b| b == 0)?;
    let (s, rest) = (d.get(..end)?, d.get(end + 1..)?);
    (!s.is_empty() && s.iter().all(|b| (0x20..0x7f).contains(b))).then_some((s, rest))
}

/// Option pairs (name NUL value NUL) filling `d` exactly; `known` restricts names and values.
fn options(mut d: &[u8], known: bool) -> bool {
    for _ in 0..MAX_OPTIONS {
        if d.is_empty() {
            return true;
        }
        let Some((name, rest)) = cstr(d, 32) else {
            return false;
        };
        let Some((value, rest)) = cstr(rest, 64) else {
            return false;
        };
        if known {
            const NAMES: &[&[u8]] = &[
                b"blksize",
                b"tsize",
                b"timeout",
                b"windowsize",
                b"multicast",
                b"utimeout",
                b"rollover",
            ];
            let named = NAMES.iter().any(|n| n.eq_ignore_ascii_case(name));
            let number = value
                .iter()
                .all(|b| b.is_ascii_digit() || *b == b'.' || *b == b',');
            if !named || !number {
                return false;
            }
        }
        d = rest;
    }
    d.is_empty()
}

/// RRQ/WRQ body: file name, mode, options.
fn request(body: &[u8]) -> bool {
    let Some((_file, rest)) = cstr(body, 512) else {
        return false;
    };
    let Some((mode, rest)) = cstr(rest, 8) else {
        return false;
    };
    let mode_ok = [&b"netascii"[..], b"octet", b"mail"]
        .iter()
        .any(|m| m.eq_ignore_ascii_case(mode));
    mode_ok && options(rest, false)
}

/// ERROR body: code 0..=8 (RFC 2347 adds 8), printable message, one NUL ending the datagram.
fn error(body: &[u8]) -> bool {
    let (Some(&[0, code]), Some(msg)) = (body.get(..2), body.get(2..)) else {
        return false;
    };
    code <= 8
        && msg.last() == Some(&0)
        && msg
            .get(..msg.len() - 1)
            .is_some_and(|m| m.iter().all(|b| (0x20..0x7f).contains(b) || *b == b'\n'))
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let (Some(op), Some(body)) = (d.get(..2), d.get(2..)) else {
        return Probe::NotForUs;
    };
    let block = body.get(..2).map(|b| u16::from_be_bytes([b[0], b[1]]));
    let answer = cx.hints.dir == Dir::ToClient;
    let ok = match (op, block) {
        ([0, 1 | 2], _) if request(body) => return Probe::Certain(&LABEL),
        ([0, 6], _) if !body.is_empty() && options(body, true) => {
            return Probe::Certain(&LABEL)
        }
        // DATA: block 1 opens a read and answers ACK 0 of a write; a first side still waiting
        // for its answer may resend block 1 or move on a little.
        ([0, 3], Some(b)) if d.len() <= 4 + MAX_BLOCK => {
            if answer {
                b == 1
            } else {
                b >= 1 && u32::from(b) <= u32::from(cx.hints.nth) + 1
            }
        }
        // ACK: exactly the opcode and block; 0 opens a write, 1 answers DATA 1.
        ([0, 4], Some(b)) if d.len() == 4 => {
            if answer {
                b == 1
            } else {
                u32::from(b) <= u32::from(cx.hints.nth)
            }
        }
        ([0, 5], _) => answer && error(body),
        _ => false,
    };
    match (ok, answer) {
        (false, _) => Probe::NotForUs,
        (true, true) => Probe::Certain(&LABEL),
        (true, false) => Probe::Unsure,
    }
}

#[cfg(test)]
mod tests;
