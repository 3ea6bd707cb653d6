//! NetBIOS over TCP/IP (RFC 1002): the name service (UDP 137, a DNS-like header with a
//! first-level-encoded 32-byte name), the datagram service (UDP 138) and the session service
//! (TCP 139).

use crate::proto::label;
use crate::util::Rd;
use crate::{Cx, Inspector, Label, Probe, TCP, UDP};

/// nDPI's NetBIOS label.
pub static LABEL: Label = label("NetBIOS", "System");

/// The NetBIOS inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "netbios",
    transports: UDP | TCP,
    ports: &[137, 138, 139],
    labels: &[&LABEL, &crate::proto::smb::SMB1],
    min_udp: 4,
    ports_required: false,
    probe,
};

/// A first-level-encoded NetBIOS name: length 32, then 32 bytes 'A'..='P'.
fn encoded_name(b: &[u8]) -> bool {
    b.first() == Some(&0x20)
        && b.get(1..33)
            .is_some_and(|n| n.iter().all(|c| (b'A'..=b'P').contains(c)))
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let ok = if cx.hints.transport == UDP {
        if datagram(d, cx.hints.port(138)) && carries_smb1(d) {
            // An SMB1 message in a datagram (the browser's mailslot announcements): nDPI names
            // it NetBIOS.SMBv1, as SMB1 over a session.
            return Probe::Certain(&crate::proto::smb::SMB1);
        }
        name_service(d, cx.hints.port(137)) || datagram(d, cx.hints.port(138))
    } else {
        session(d)
    };
    if ok {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

/// Does a direct or broadcast datagram (RFC 1002 §4.4.2: 14-byte header, source and destination
/// names, each a run of length-prefixed labels ending with a zero byte) carry an SMB1 message
/// (`\xffSMB`) as its user data?
fn carries_smb1(d: &[u8]) -> bool {
    if !matches!(d.first(), Some(0x10..=0x12)) {
        return false;
    }
    let mut at = 14;
    for _ in 0..2 {
        // A name: labels until the zero byte (at most 255 bytes in all, RFC 1002 §4.1).
        let start = at;
        loop {
            let Some(&n) = d.get(at) else { return false };
            at += 1 + usize::from(n);
            if n == 0 {
                break;
            }
            if n & 0xc0 != 0 || at - start > 255 {
                return false;
            }
        }
    }
    d.get(at..at + 4) == Some(b"\xffSMB")
}

/// On port 137 the name's bytes are not checked (damaged names are still NetBIOS, as nDPI
/// says); elsewhere they must be first-level encoded.
fn name_service(d: &[u8], port137: bool) -> bool {
    let mut r = Rd::new(d);
    let (Some(_), Some(flags), Some(qd), Some(an)) = (r.u16(), r.u16(), r.u16(), r.u16()) else {
        return false;
    };
    let opcode = (flags >> 11) & 0xf;
    matches!(opcode, 0 | 5 | 6 | 7 | 8) && u32::from(qd) + u32::from(an) >= 1 && qd <= 1 && an <= 1 && d.get(12..).is_some_and(|n| {
            encoded_name(n) || (port137 && n.first() == Some(&0x20) && n.len() >= 33)
        })
}

fn datagram(d: &[u8], port138: bool) -> bool {
    let mut r = Rd::new(d);
    let Some(t) = r.u8() else { return false };
    match t {
        // Direct unique, direct group, broadcast: header 14 bytes, then the encoded source name.
        0x10..=0x12 => {
            r.skip(9);
            let Some(len) = r.u16() else { return false };
            len as usize + 14 <= d.len() + 64 && d.get(14..).is_some_and(encoded_name)
        }
        // RFC 1002 §4.4.1: the flags' high nibble is reserved (zero). An error (§4.4.3): 11
        // bytes ending in an error code 0x82-0x84. A query request or a positive or negative
        // query response (§4.4.4): the 10-byte header, then the encoded destination name.
        // (Without these, any 11-64 bytes on udp/138 starting 0x13-0x16 were NetBIOS: with the
        // corpus's ports moved there, Gnutella, DNS, RiotGames and TocaBoca flows.)
        0x13 => {
            port138
                && d.len() == 11
                && d.get(1).is_some_and(|f| f & 0xf0 == 0)
                && matches!(d.get(10), Some(0x82..=0x84))
        }
        0x14..=0x16 => {
            port138
                && d.len() <= 320
                && d.get(1).is_some_and(|f| f & 0xf0 == 0)
                && d.get(10..).is_some_and(encoded_name)
        }
        _ => false,
    }
}

fn session(d: &[u8]) -> bool {
    let mut r = Rd::new(d);
    let (Some(t), Some(f), Some(len)) = (r.u8(), r.u8(), r.u16()) else {
        return false;
    };
    if f & 0xfe != 0 {
        return false;
    }
    match t {
        // Session request: called and calling names.
        0x81 => len as usize + 4 == d.len() && d.get(4..).is_some_and(encoded_name),
        0x82 | 0x85 => len == 0 && d.len() == 4,
        0x83 => len == 1 && d.len() == 5,
        _ => false,
    }
}

#[cfg(test)]
mod tests;
