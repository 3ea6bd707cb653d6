//! Xiaomi's push protocol (TCP 5222 and others): magic `c2 fe`, and a 32-bit body length at
//! byte 4 that covers the rest of the message after its 12-byte header.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP};

/// nDPI's Xiaomi label.
pub static LABEL: Label = label("Xiaomi", "Web");

/// The Xiaomi inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "xiaomi",
    transports: TCP,
    ports: &[5222],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let (Some(&[0xc2, 0xfe]), Some(l)) = (d.get(..2), d.get(4..8)) else {
        return Probe::NotForUs;
    };
    let len = u32::from_be_bytes([l[0], l[1], l[2], l[3]]) as usize;
    if len.checked_add(12) == Some(d.len()) {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
