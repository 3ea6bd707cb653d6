//! Nexon game login (nDPI's Nexon): small fixed TCP messages. A 24-byte one opens with its own
//! length as a little-endian u32 (`18 00 00 00`) and the value 100 (`64 00 00 00`); a 20-byte
//! one carries the constant `16 3a 99 2e` at offset 4: nDPI's rule (src/lib/protocols/nexon.c),
//! on any port.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP};

/// nDPI's Nexon label.
pub static LABEL: Label = label("Nexon", "Game");

/// The Nexon inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "nexon",
    transports: TCP,
    ports: &[],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn is_nexon(d: &[u8]) -> bool {
    match d.len() {
        24 => d.get(..8) == Some(&[0x18, 0, 0, 0, 0x64, 0, 0, 0]),
        20 => d.get(4..8) == Some(&[0x16, 0x3a, 0x99, 0x2e]),
        _ => false,
    }
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    Probe::certain_if(is_nexon(cx.data), &LABEL)
}

#[cfg(test)]
mod tests;
