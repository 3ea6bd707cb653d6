//! PFCP, the Packet Forwarding Control Protocol between 5G/EPC control and user planes
//! (3GPP TS 29.244), over UDP port 8805. Section 7.2.2 gives the header: version 1 in the top
//! three bits of the first octet, two spare bits, the FO, MP and S flags, the message type, a
//! 16-bit length of everything after the first four octets, an 8-byte SEID when S is set, then
//! a 3-byte sequence number and a spare (or priority) octet. Information elements follow as
//! type, length (16 bits each) and value (section 8.1.1).
//!
//! Checked: version 1, spare bits clear, a message type of Table 7.3-1 whose S flag matches its
//! kind (node messages 1-17 without SEID, session messages 50-57 with one), the length equal to
//! the datagram, and information elements (non-zero types, at most 256) ending exactly at the
//! end. A message with no element is only accepted on port 8805.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, UDP};

/// nDPI's PFCP label.
pub static LABEL: Label = label("PFCP", "Network");

/// The PFCP inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "pfcp",
    transports: UDP,
    ports: &[8805],
    labels: &[&LABEL],
    min_udp: 8,
    ports_required: false,
    probe,
};

/// The number of information elements from `at` if they end exactly at the end of `d`.
fn elements(d: &[u8], mut at: usize) -> Option<usize> {
    for n in 0..256 {
        if at == d.len() {
            return Some(n);
        }
        let h = d.get(at..at + 4)?;
        let (t, len) = (u16::from_be_bytes([h[0], h[1]]), u16::from_be_bytes([h[2], h[3]]));
        if t == 0 {
            return None;
        }
        at += 4 + usize::from(len);
    }
    None
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let (Some(&flags), Some(&mtype), Some(l)) = (d.first(), d.get(1), d.get(2..4)) else {
        return Probe::NotForUs;
    };
    let len = usize::from(u16::from_be_bytes([l[0], l[1]]));
    let s = flags & 1 == 1;
    let kind_ok = match mtype {
        1..=17 => !s,
        50..=57 => s,
        _ => false,
    };
    if flags >> 5 != 1 || flags & 0x18 != 0 || !kind_ok || len + 4 != d.len() {
        return Probe::NotForUs;
    }
    let ies_at = if s { 16 } else { 8 };
    match elements(d, ies_at) {
        Some(n) if n > 0 || cx.hints.port(8805) => Probe::Certain(&LABEL),
        _ => Probe::NotForUs,
    }
}

#[cfg(test)]
mod tests;
