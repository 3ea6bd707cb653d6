//! HART-IP (TCP/UDP 5094): version 1, a message type (request, response, publish, NAK), a
//! message id, a status, a sequence number and a 16-bit length equal to the message.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP, UDP};

/// nDPI's HART-IP label.
pub static LABEL: Label = label("HART-IP", "IoT-Scada");

/// The HART-IP inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "hart_ip",
    transports: TCP | UDP,
    ports: &[5094, 5095],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let (Some(&1), Some(&ty), Some(&id), Some(l)) = (d.first(), d.get(1), d.get(2), d.get(6..8))
    else {
        return Probe::NotForUs;
    };
    let len = usize::from(u16::from_be_bytes([l[0], l[1]]));
    if ty <= 3 && matches!(id, 0..=3 | 128) && len == d.len() && len >= 8 {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
