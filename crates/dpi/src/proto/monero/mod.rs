//! Monero's peer-to-peer (Levin) protocol: the 8-byte signature `01 21 01 01 01 01 01 01`,
//! a 64-bit body size, and a protocol version of 1 at byte 29 of the 33-byte header.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP};

/// nDPI's Monero label.
pub static LABEL: Label = label("Monero", "Crypto_Currency");

/// The Monero inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "monero",
    transports: TCP,
    ports: &[18080, 18081],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let sig = d.starts_with(&[0x01, 0x21, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01]);
    let size_ok = d.get(8..16).is_some_and(|s| {
        u64::from_le_bytes([s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7]]) < 1 << 28
    });
    if sig && size_ok && d.get(29..33) == Some(&[1, 0, 0, 0]) {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
