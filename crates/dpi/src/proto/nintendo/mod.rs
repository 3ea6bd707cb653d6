//! Nintendo Switch online play (the PIA session protocol): datagrams start with the magic
//! `32 ab 98 64` and a version byte of 2.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, UDP};

/// nDPI's Nintendo label.
pub static LABEL: Label = label("Nintendo", "Game");

/// The Nintendo inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "nintendo",
    transports: UDP,
    ports: &[],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    if d.starts_with(&[0x32, 0xab, 0x98, 0x64]) && d.get(4) == Some(&2) && d.len() >= 32 {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
