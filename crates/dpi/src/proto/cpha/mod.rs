//! Check Point ClusterXL high-availability protocol (CPHA), UDP port 8116. Check Point publishes
//! no specification; the format is the one Wireshark's CPHA dissector documents: a 16-byte
//! header of 16-bit big-endian fields, the magic 0x1A90, the HA protocol version (1 for 4.1,
//! then 2-6 for NG and 530 onwards for later releases), the cluster number, the opcode
//! (1 FWHA_MY_STATE to 10 FWHAP_SYNC), the source interface, a random id and the source and
//! destination machine ids.
//!
//! Checked: the magic, a version of 1-4095, an opcode of 1-10 and room for the header. The
//! magic is only 16 bits, so the flow must use port 8116 (`ports_required`).

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, UDP};

/// nDPI's CPHA label.
pub static LABEL: Label = label("CPHA", "Network");

/// The CPHA inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "cpha",
    transports: UDP,
    ports: &[8116],
    labels: &[&LABEL],
    min_udp: 16,
    ports_required: true,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let (Some(&[0x1a, 0x90]), Some(v), Some(op), true) =
        (d.get(..2), d.get(2..4), d.get(6..8), d.len() >= 16)
    else {
        return Probe::NotForUs;
    };
    let version = u16::from_be_bytes([v[0], v[1]]);
    let opcode = u16::from_be_bytes([op[0], op[1]]);
    if cx.hints.port(8116) && (1..=4095).contains(&version) && (1..=10).contains(&opcode) {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
