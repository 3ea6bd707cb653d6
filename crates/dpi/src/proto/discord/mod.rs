//! Discord voice over UDP: the IP discovery request and answer (type 1 or 2, length 70, SSRC,
//! a NUL-padded address and a port: 74 bytes) and the 8-byte `13 37 ca fe` probe.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, UDP};

/// nDPI's Discord label.
pub static LABEL: Label = label("Discord", "Collaborative");

/// The Discord voice inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "discord",
    transports: UDP,
    ports: &[],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let discovery = d.len() == 74 && matches!(d.get(..4), Some(&[0, 1, 0, 70] | &[0, 2, 0, 70]));
    let magic = d.len() == 8 && d.starts_with(&[0x13, 0x37, 0xca, 0xfe]);
    if discovery || magic {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
