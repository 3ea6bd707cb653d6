//! BJNP (Canon printer and scanner discovery): a 16-byte header starting `BJNP` (printer) or
//! `BJNS` (scanner), a request or reply type, a command, and a 32-bit payload length at byte
//! 12 that covers the rest of the datagram.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, UDP};

/// nDPI's BJNP label.
pub static LABEL: Label = label("BJNP", "System");

/// The BJNP inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "bjnp",
    transports: UDP,
    ports: &[8611, 8612, 8613, 8614],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let (Some(magic), Some(&ty), Some(l)) = (d.get(..4), d.get(4), d.get(12..16)) else {
        return Probe::NotForUs;
    };
    let len = u32::from_be_bytes([l[0], l[1], l[2], l[3]]) as usize;
    let ok = matches!(magic, b"BJNP" | b"BJNS" | b"BJNB" | b"BJNM")
        && matches!(ty, 1 | 2 | 0x81 | 0x82)
        && len.checked_add(16) == Some(d.len());
    if ok {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
