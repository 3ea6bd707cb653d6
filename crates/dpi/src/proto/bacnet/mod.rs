//! BACnet/IP (ASHRAE 135 Annex J): every datagram opens with a BVLC header, type 0x81
//! (BACnet/IPv4), a function code 0x00-0x0B and a 16-bit length equal to the whole datagram.
//! The functions that carry an NPDU (Forwarded-NPDU 0x04 after a 6-byte B/IP address,
//! Distribute-Broadcast 0x09, Original-Unicast 0x0A, Original-Broadcast 0x0B) must show the NPDU
//! version 1 (clause 6.2.1) where it starts. Seen on UDP 47808 (0xBAC0) but checked anywhere.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, UDP};

/// nDPI's BACnet label.
pub static LABEL: Label = label("BACnet", "IoT-Scada");

/// The BACnet/IP inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "bacnet",
    transports: UDP,
    ports: &[47808],
    labels: &[&LABEL],
    min_udp: 4,
    ports_required: false,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    Probe::certain_if(is_bvlc(cx.data), &LABEL)
}

/// A whole BVLC message (Annex J.2) whose NPDU, if it carries one, has version 1.
fn is_bvlc(d: &[u8]) -> bool {
    let (Some(&0x81), Some(&func), Some(l)) = (d.first(), d.get(1), d.get(2..4)) else {
        return false;
    };
    if func > 0x0b || usize::from(u16::from_be_bytes([l[0], l[1]])) != d.len() {
        return false;
    }
    match func {
        0x04 => d.get(10) == Some(&1),
        0x09..=0x0b => d.get(4) == Some(&1),
        _ => true,
    }
}

#[cfg(test)]
mod tests;
