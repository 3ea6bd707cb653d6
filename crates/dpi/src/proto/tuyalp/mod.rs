//! Tuya's local protocol (TuyaLP): frames start with `000055aa`, end with `0000aa55`, and carry
//! at byte 12 a 32-bit length of everything after the 16-byte header.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP, UDP};

/// nDPI's TuyaLP label.
pub static LABEL: Label = label("TuyaLP", "IoT-Scada");

/// The TuyaLP inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "tuyalp",
    transports: UDP | TCP,
    ports: &[6666, 6667, 6668],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let (Some(&[0, 0, 0x55, 0xaa]), Some(l)) = (d.get(..4), d.get(12..16)) else {
        return Probe::NotForUs;
    };
    let len = u32::from_be_bytes([l[0], l[1], l[2], l[3]]) as usize;
    if len.checked_add(16) == Some(d.len()) && d.ends_with(&[0, 0, 0xaa, 0x55]) {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
