//! CAN frames tunnelled over UDP (ISO 11898 over Ethernet, as nDPI's
//! Controller_Area_Network): the datagram starts `ISO11898` and a version byte of 1.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, UDP};

/// nDPI's Controller_Area_Network label.
pub static LABEL: Label = label("Controller_Area_Network", "System");

/// The CAN-over-UDP inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "can",
    transports: UDP,
    ports: &[11898],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    if d.starts_with(b"ISO11898") && d.get(8) == Some(&1) && d.len() >= 12 {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
