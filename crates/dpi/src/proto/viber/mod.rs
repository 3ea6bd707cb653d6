//! Viber: over UDP, after two bytes of session tag, the control header `01 00 05 00` of a
//! call set-up, or the 20-byte `09 00` keepalive, as nDPI recognises them; over TCP, messages
//! with a little-endian 16-bit length equal to the segment and the marker `fc ff` at byte 6
//! and `80` at byte 9.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP, UDP};

/// nDPI's Viber label.
pub static LABEL: Label = label("Viber", "VoIP");

/// The Viber inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "viber",
    transports: UDP | TCP,
    ports: &[7985, 7987, 5242, 5243, 4244],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    if cx.hints.transport == TCP {
        let len_ok = d
            .get(..2)
            .is_some_and(|l| usize::from(u16::from_le_bytes([l[0], l[1]])) == d.len());
        return if len_ok && d.len() >= 12 && d.get(6..8) == Some(&[0xfc, 0xff]) && d.get(9) == Some(&0x80) {
            Probe::Certain(&LABEL)
        } else {
            Probe::NotForUs
        };
    }
    let setup = d.len() >= 32 && d.get(2..6) == Some(&[1, 0, 5, 0]);
    let keepalive = d.len() == 20 && d.get(2..4) == Some(&[9, 0]);
    if setup || (keepalive && cx.hints.nth > 0) {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
