//! Omron FINS (Factory Interface Network Service), port 9600. Over UDP a datagram is the
//! 10-byte FINS header then the command: ICF (bit 7 set; bit 6 response; bit 0 no response
//! wanted; the others zero), RSV (zero), GCT (gateway count, up to 7), destination and source
//! network/node/unit, SID, then the command code MRC/SRC (Omron "FINS Commands Reference
//! Manual" W227, the FINS header and the command list). Over TCP every frame starts
//! with the FINS/TCP header: `FINS`, a 32-bit length of what follows it, a command (0 node
//! address from client, 1 from server, 2 FINS frame, 3 error, 6 busy) and an error code (Omron
//! Ethernet Units Operation Manual W421, FINS/TCP).
//!
//! Checked over UDP (only on port 9600: the fixed bits are few): the ICF values 0x80, 0x81,
//! 0xC0, 0xC1, RSV zero, GCT at most 7, network numbers at most 127 and a main request code of
//! the command list with a sub code of 1-0x20. Over TCP: the magic, a known command and a length
//! (8-4096) that ends at the end of the segment or is followed by another `FINS` header; the
//! port is required on both transports (one flag covers both).

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP, UDP};

/// nDPI's FINS label.
pub static LABEL: Label = label("FINS", "IoT-Scada");

/// The FINS inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "fins",
    transports: TCP | UDP,
    ports: &[9600],
    labels: &[&LABEL],
    min_udp: 12,
    ports_required: true,
    probe,
};

/// Main request codes of the FINS command list.
const MRC: [u8; 14] = [
    0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x09, 0x0c, 0x21, 0x22, 0x23, 0x26, 0x28,
];

fn udp(d: &[u8]) -> bool {
    let (Some(&icf), Some(&0), Some(&gct), Some(&dna), Some(&sna), Some(&mrc), Some(&src)) =
        (d.first(), d.get(1), d.get(2), d.get(3), d.get(6), d.get(10), d.get(11))
    else {
        return false;
    };
    [0x80, 0x81, 0xc0, 0xc1].contains(&icf)
        && gct <= 7
        && dna <= 127
        && sna <= 127
        && MRC.contains(&mrc)
        && (1..=0x20).contains(&src)
}

fn tcp(d: &[u8]) -> bool {
    let (Some(b"FINS"), Some(l), Some(c)) = (d.get(..4), d.get(4..8), d.get(8..12)) else {
        return false;
    };
    let len = u32::from_be_bytes([l[0], l[1], l[2], l[3]]) as usize;
    let cmd = u32::from_be_bytes([c[0], c[1], c[2], c[3]]);
    let end = 8 + len;
    let fits = end >= d.len() || d.get(end..end + 4) == Some(b"FINS");
    matches!(cmd, 0..=3 | 6) && (8..=4096).contains(&len) && fits
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    let ok = if cx.hints.transport == UDP {
        udp(cx.data)
    } else {
        tcp(cx.data)
    };
    if ok && cx.hints.port(9600) {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
