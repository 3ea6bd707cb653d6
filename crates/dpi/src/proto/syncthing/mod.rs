//! Syncthing local discovery (UDP 21027): the magic `2e a7 d9 0b` followed by a protobuf
//! announcement whose first field is the 32-byte device id (`0a 20`).

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, UDP};

/// nDPI's Syncthing label.
pub static LABEL: Label = label("Syncthing", "Download");

/// The Syncthing discovery inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "syncthing",
    transports: UDP,
    ports: &[21027],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    if d.starts_with(&[0x2e, 0xa7, 0xd9, 0x0b, 0x0a, 0x20]) && d.len() >= 38 {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
