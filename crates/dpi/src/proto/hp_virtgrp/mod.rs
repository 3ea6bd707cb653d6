//! HP Virtual Group (TCP 5223): records of a type byte, a 16-bit length equal to the whole
//! record, and a zero byte, as in the captures nDPI's rule was written from.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP};

/// nDPI's HP_VIRTGRP label.
pub static LABEL: Label = label("HP_VIRTGRP", "Network");

/// The HP Virtual Group inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "hp_virtgrp",
    transports: TCP,
    ports: &[5223],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let (Some(&0x16), Some(l), Some(&0)) = (d.first(), d.get(1..3), d.get(3)) else {
        return Probe::NotForUs;
    };
    let len = usize::from(u16::from_be_bytes([l[0], l[1]]));
    if cx.hints.dir == crate::Dir::ToServer && len >= 32 && len == d.len() {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
