//! Cisco Skinny (SCCP, TCP 2000): a little-endian header of length (the segment less 8), a
//! header version (0 or a protocol version up to 0x16) and a message id of the SCCP ranges.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP};

/// nDPI's CiscoSkinny label.
pub static LABEL: Label = label("CiscoSkinny", "VoIP");

/// The Skinny inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "skinny",
    transports: TCP,
    ports: &[2000],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn le32(d: &[u8], at: usize) -> Option<u32> {
    d.get(at..at + 4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let (Some(len), Some(ver), Some(id)) = (le32(d, 0), le32(d, 4), le32(d, 8)) else {
        return Probe::NotForUs;
    };
    let ok = len as usize + 8 == d.len()
        && len >= 4
        && (ver == 0 || (0x0a..=0x16).contains(&ver))
        && (id <= 0x15f || (0x8000..=0x8200).contains(&id));
    if ok {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
