//! NAT-PMP (RFC 6886) on UDP 5351: version 0, an opcode (requests 0-2, answers 128-130) and
//! the exact size each message has. The messages are tiny, so the port is required too.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, UDP};

/// nDPI's NAT-PMP label.
pub static LABEL: Label = label("NAT-PMP", "Network");

/// The NAT-PMP inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "nat_pmp",
    transports: UDP,
    ports: &[5351],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let ok = cx.hints.server_port == 5351
        && d.first() == Some(&0)
        && matches!(
            (d.get(1), d.len()),
            (Some(0), 2) | (Some(1 | 2), 12) | (Some(128), 12) | (Some(129 | 130), 16)
        );
    if ok {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
