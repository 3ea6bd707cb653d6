//! Viber calls over UDP: after two bytes of session tag, the control header `01 00 05 00` of a
//! call set-up, or the 20-byte `09 00` keepalive, as nDPI recognises them.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, UDP};

/// nDPI's Viber label.
pub static LABEL: Label = label("Viber", "VoIP");

/// The Viber inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "viber",
    transports: UDP,
    ports: &[7985, 7987, 5242, 5243, 4244],
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
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
