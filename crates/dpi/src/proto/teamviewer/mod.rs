//! TeamViewer: over TCP, packets of its protocol start with `17 24` (or `11 30` in older
//! versions); the two bytes are weak alone, so the flow needs two such packets in one
//! direction. Over UDP, the magic `17 24` at byte 11 followed by a command of 0x50, as nDPI
//! tests it.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP, UDP};

/// nDPI's TeamViewer label.
pub static LABEL: Label = label("TeamViewer", "RemoteAccess");

/// The TeamViewer inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "teamviewer",
    transports: TCP | UDP,
    ports: &[5938],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    if cx.hints.transport == UDP {
        return if d.len() > 13 && d.get(11..14) == Some(&[0x17, 0x24, 0x47]) || d.get(11..13) == Some(&[0x17, 0x24]) && d.get(13) == Some(&0x50) {
            Probe::Certain(&LABEL)
        } else {
            Probe::NotForUs
        };
    }
    let magic = d.len() >= 8 && matches!(d.get(..2), Some(&[0x17, 0x24] | &[0x11, 0x30]));
    match (magic, cx.hints.nth) {
        (true, 0) => Probe::Unsure,
        (true, _) => Probe::Certain(&LABEL),
        _ => Probe::NotForUs,
    }
}

#[cfg(test)]
mod tests;

