//! Modbus/TCP: an MBAP header (transaction id, protocol id 0, a length equal to the rest of
//! the segment, unit id) and a function code (1-127 requests, or an exception answer).

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP};

/// nDPI's Modbus label.
pub static LABEL: Label = label("Modbus", "IoT-Scada");

/// The Modbus/TCP inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "modbus",
    transports: TCP,
    ports: &[502],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let (Some(&[0, 0]), Some(l), Some(&f)) = (d.get(2..4), d.get(4..6), d.get(7)) else {
        return Probe::NotForUs;
    };
    let len = usize::from(u16::from_be_bytes([l[0], l[1]]));
    let ok = len >= 2 && len + 6 == d.len() && f != 0 && (f < 0x80 || (0x81..=0xff).contains(&f) && len == 3);
    if ok {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
