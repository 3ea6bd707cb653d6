//! RX, the RPC transport of AFS (UDP 7000-7009): a 28-byte header (epoch, connection id, call
//! number, sequence, serial, packet type 1-13, flags, user status, security index 0-3,
//! spare, service id). The header has few fixed values, so one of AFS's ports is required.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, UDP};

/// nDPI's RX label.
pub static LABEL: Label = label("RX", "RPC");

/// The RX inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "rx",
    transports: UDP,
    ports: &[7000, 7001, 7002, 7003, 7004, 7005, 7006, 7007, 7008, 7009],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let afs = (7000..=7009).contains(&cx.hints.server_port);
    let (Some(&ty), Some(&sec), Some(serial)) = (d.get(20), d.get(23), d.get(16..20)) else {
        return Probe::NotForUs;
    };
    let ok = afs
        && (1..=13).contains(&ty)
        && sec <= 3
        && serial != [0, 0, 0, 0]
        && d.get(24..26) == Some(&[0, 0]);
    if ok {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
