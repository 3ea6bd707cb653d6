//! RMCP (IPMI over LAN, UDP 623): version 6, a reserved zero byte, a sequence number and a
//! message class of ASF (6), IPMI (7) or OEM (8), possibly with the acknowledge bit.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, UDP};

/// nDPI's RMCP label.
pub static LABEL: Label = label("RMCP", "System");

/// The RMCP inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "rmcp",
    transports: UDP,
    ports: &[623, 664],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let ok = d.len() >= 8
        && d.first() == Some(&6)
        && d.get(1) == Some(&0)
        && d.get(3).is_some_and(|c| matches!(c & 0x7f, 6..=8) && c & 0x60 == 0)
        && cx.hints.port(623) | cx.hints.port(664);
    if ok {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
