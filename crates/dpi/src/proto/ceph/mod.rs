//! Ceph's messenger: both ends open with the banner `ceph v027` (msgr v1) or `ceph v2\n`.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP};

/// nDPI's Ceph label.
pub static LABEL: Label = label("Ceph", "DataTransfer");

/// The Ceph inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "ceph",
    transports: TCP,
    ports: &[6789, 3300],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    if d.starts_with(b"ceph v027") || d.starts_with(b"ceph v2\n") {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
