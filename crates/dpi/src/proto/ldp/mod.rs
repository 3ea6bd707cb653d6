//! LDP, the MPLS Label Distribution Protocol (RFC 5036), on port 646: Hellos over UDP
//! (multicast 224.0.0.2 or targeted), sessions over TCP. Section 3.1: each PDU is a version (1),
//! a PDU length counting everything after it, and a 6-byte LDP identifier, then messages
//! (section 3.4), each a U bit and 15-bit type, a length counting the rest of the message, and a
//! 4-byte message id followed by its parameters.
//!
//! Checked: version 1, a PDU length that holds the identifier and at least one message, and a
//! walk of the PDU's messages (at most 64) with types of RFC 5036 section 3.7 and RFC 5561
//! (Notification, Hello, Initialization, KeepAlive, Capability, Address, Address Withdraw, Label
//! Mapping/Request/Withdraw/Release/Abort Request) or the vendor and experimental ranges
//! 0x3E00-0x3FFF, each at least a message id long, ending exactly at the PDU's end. Over UDP the
//! PDU fills the datagram and starts with a Hello; over TCP a segment may hold several PDUs, and
//! the bytes after the first must start another version-1 PDU.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP, UDP};

/// nDPI's LDP label.
pub static LABEL: Label = label("LDP", "Network");

/// The LDP inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "ldp",
    transports: TCP | UDP,
    ports: &[646],
    labels: &[&LABEL],
    min_udp: 18,
    ports_required: false,
    probe,
};

const HELLO: u16 = 0x0100;

fn known(t: u16) -> bool {
    matches!(
        t,
        0x0001 | 0x0100 | 0x0200..=0x0202 | 0x0300 | 0x0301 | 0x0400..=0x0404 | 0x3e00..=0x3fff
    )
}

/// The first message type if the messages of `pdu` (after the 10-byte PDU header) walk exactly.
fn messages(pdu: &[u8]) -> Option<u16> {
    let mut at = 10;
    let mut first = None;
    for _ in 0..64 {
        if at == pdu.len() {
            return first;
        }
        let h = pdu.get(at..at + 4)?;
        let t = u16::from_be_bytes([h[0], h[1]]) & 0x7fff;
        let len = usize::from(u16::from_be_bytes([h[2], h[3]]));
        if !known(t) || len < 4 {
            return None;
        }
        first.get_or_insert(t);
        at += 4 + len;
    }
    None
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let (Some(&[0, 1]), Some(l)) = (d.get(..2), d.get(2..4)) else {
        return Probe::NotForUs;
    };
    let end = 4 + usize::from(u16::from_be_bytes([l[0], l[1]]));
    let Some(pdu) = d.get(..end) else {
        return Probe::NotForUs;
    };
    let first = messages(pdu);
    let ok = if cx.hints.transport == UDP {
        end == d.len() && first == Some(HELLO)
    } else {
        first.is_some() && (end == d.len() || d.get(end..end + 2) == Some(&[0, 1]))
    };
    if ok {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
