//! ZUG, the consensus protocol of the Casper network: datagrams start `\0zUG` and a version
//! byte of 0x10.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, UDP};

/// nDPI's ZUG label.
pub static LABEL: Label = label("ZUG", "Crypto_Currency");

/// The ZUG inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "zug",
    transports: UDP,
    ports: &[],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    if cx.data.starts_with(b"\x00zUG\x10") {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
