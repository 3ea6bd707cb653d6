//! Ubiquiti discovery (nDPI's UBNTAC2, UDP 10001): version 1 or 2, a command, a 16-bit length
//! of the rest, and type-length-value fields that fill it exactly.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, UDP};

/// nDPI's UBNTAC2 label.
pub static LABEL: Label = label("UBNTAC2", "Network");

/// The Ubiquiti discovery inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "ubntac2",
    transports: UDP,
    ports: &[10001],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let (Some(&ver), Some(l)) = (d.first(), d.get(2..4)) else {
        return Probe::NotForUs;
    };
    let len = usize::from(u16::from_be_bytes([l[0], l[1]]));
    if !matches!(ver, 1 | 2) || len + 4 != d.len() || len < 3 {
        return Probe::NotForUs;
    }
    let mut at = 4;
    for _ in 0..64 {
        if at == d.len() {
            return Probe::Certain(&LABEL);
        }
        let Some(t) = d.get(at + 1..at + 3) else {
            return Probe::NotForUs;
        };
        at += 3 + usize::from(u16::from_be_bytes([t[0], t[1]]));
    }
    Probe::NotForUs
}

#[cfg(test)]
mod tests;
