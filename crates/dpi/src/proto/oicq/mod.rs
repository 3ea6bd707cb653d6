//! OICQ (early QQ over UDP): flag byte 0x02, version 0x3b0b, a command number in QQ's ranges;
//! nDPI's test, plus the closing 0x03 byte of the message.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, UDP};

/// nDPI's OICQ label.
pub static LABEL: Label = label("OICQ", "Chat");

/// The OICQ inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "oicq",
    transports: UDP,
    ports: &[8000],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let (Some(&2), Some(&[0x3b, 0x0b]), Some(c)) = (d.first(), d.get(1..3), d.get(3..5)) else {
        return Probe::NotForUs;
    };
    let cmd = u16::from_be_bytes([c[0], c[1]]);
    if d.len() >= 7 && matches!(cmd, 1..=0xb5 | 0x3f7) && d.last() == Some(&3) {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
