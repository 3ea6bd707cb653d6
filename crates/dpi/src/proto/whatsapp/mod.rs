//! WhatsApp's chat protocol: the client opens with `WA` and a two-byte protocol version, then
//! a frame (flags, 16-bit length) that fits the segment; newer clients open with the Noise
//! prologue `ED\0\x01`.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP};

/// nDPI's WhatsApp label.
pub static LABEL: Label = label("WhatsApp", "Chat");

/// The WhatsApp inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "whatsapp",
    transports: TCP,
    ports: &[5222, 443],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let (Some(magic), Some(&major), Some(&minor)) = (d.get(..2), d.get(2), d.get(3)) else {
        return Probe::NotForUs;
    };
    let known = match magic {
        b"WA" => (1..=6).contains(&major) && minor <= 9,
        b"ED" => major == 0 && minor == 1,
        _ => false,
    };
    if !known {
        return Probe::NotForUs;
    }
    let Some(l) = d.get(5..7) else {
        return Probe::NotForUs;
    };
    let len = usize::from(u16::from_be_bytes([l[0], l[1]]));
    if len > 0 && 7 + len <= d.len() {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
