//! IAX2, the Inter-Asterisk eXchange protocol (RFC 5456), over UDP port 4569. A dialog opens
//! with a full frame (section 8.1.1): the F bit and a 15-bit source call number, the R bit and a
//! 15-bit destination call number, a 32-bit timestamp, outbound and inbound sequence numbers, a
//! frame type and a subclass; IAX control frames (type 6, section 8.4) carry information
//! elements, each an id, a length and that many bytes (section 8.6).
//!
//! Checked: a full frame with a non-zero source call number, frame type 6 (IAX) with a subclass
//! of 1-0x26 and the C (shifted subclass) bit clear; a NEW (subclass 1) has destination call 0
//! and outbound sequence 0; the information elements (ids 1-0x40, at most 256) end exactly at
//! the end of the datagram. A frame with no elements (POKE, PING, ACK: 12 bytes of fixed header)
//! is only accepted on port 4569. Mini frames (F clear) carry 4 header bytes and media, too little
//! to recognise.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, UDP};

/// nDPI's IAX label.
pub static LABEL: Label = label("IAX", "VoIP");

/// The IAX2 inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "iax",
    transports: UDP,
    ports: &[4569],
    labels: &[&LABEL],
    min_udp: 12,
    ports_required: false,
    probe,
};

/// True if the information elements from `at` end exactly at the end of `d` (at least one).
fn elements(d: &[u8], mut at: usize) -> bool {
    for n in 0..256 {
        if at == d.len() {
            return n > 0;
        }
        let (Some(&id), Some(&len)) = (d.get(at), d.get(at + 1)) else {
            return false;
        };
        if !(1..=0x40).contains(&id) {
            return false;
        }
        at += 2 + usize::from(len);
        if at > d.len() {
            return false;
        }
    }
    false
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let (Some(h), Some(&oseq), Some(&ftype), Some(&sub)) =
        (d.get(..4), d.get(8), d.get(10), d.get(11))
    else {
        return Probe::NotForUs;
    };
    let scall = u16::from_be_bytes([h[0], h[1]]);
    let dcall = u16::from_be_bytes([h[2], h[3]]) & 0x7fff;
    let full = scall & 0x8000 != 0 && scall & 0x7fff != 0;
    if !full || ftype != 6 || !(1..=0x26).contains(&sub) {
        return Probe::NotForUs;
    }
    if sub == 1 && (dcall != 0 || oseq != 0) {
        return Probe::NotForUs;
    }
    let ok = if d.len() == 12 {
        cx.hints.port(4569)
    } else {
        elements(d, 12)
    };
    if ok {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
