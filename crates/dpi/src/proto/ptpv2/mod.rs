//! PTPv2 (IEEE 1588) over UDP 319/320: version 2, a known message type, a message length of at
//! least 34 that fits the datagram.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, UDP};

/// nDPI's PTPv2 label.
pub static LABEL: Label = label("PTPv2", "System");

/// The PTPv2 inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "ptpv2",
    transports: UDP,
    ports: &[319, 320],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let (Some(&t), Some(&v), Some(l)) = (d.first(), d.get(1), d.get(2..4)) else {
        return Probe::NotForUs;
    };
    let len = usize::from(u16::from_be_bytes([l[0], l[1]]));
    let ok = (cx.hints.port(319) || cx.hints.port(320))
        && v & 0x0f == 2
        && matches!(t & 0x0f, 0..=3 | 8..=0xd)
        && len >= 34
        && len <= d.len();
    if ok {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
