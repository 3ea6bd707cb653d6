//! World of Warcraft: each side of a world connection opens with a length-prefixed
//! `WORLD OF WARCRAFT CONNECTION - ...` greeting.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP};

/// nDPI's WorldOfWarcraft label.
pub static LABEL: Label = label("WorldOfWarcraft", "Game");

/// The World of Warcraft inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "wow",
    transports: TCP,
    ports: &[3724, 8085],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let text = d.get(2..).unwrap_or(&[]);
    let len_ok = d.first().is_some_and(|&l| usize::from(l) + 2 == d.len());
    if len_ok && text.starts_with(b"WORLD OF WARCRAFT CONNECTION") {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
