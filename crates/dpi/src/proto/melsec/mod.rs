//! MELSEC: the MELSOFT engineering protocol of Mitsubishi PLCs (GX Works to an iQ-F/iQ-R CPU,
//! TCP 5007, and its UDP 5560 discovery broadcast). Mitsubishi publishes no specification of
//! it; the layout used here is what melsec.pcapng.out and nDPI's own rule show: a first byte
//! 0x57 (request) or 0xD7 (answer), the constant 00 00 11 11 at offsets 3-6, and a
//! little-endian 16-bit length at offset 19 counting the bytes after offset 21, in messages
//! longer than 40 bytes. The TCP session opens with shorter exchanges, so on MELSEC's ports a
//! flow's first few short packets are not held against it.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP, UDP};

/// nDPI's MELSEC label.
pub static LABEL: Label = label("MELSEC", "IoT-Scada");

/// The MELSEC inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "melsec",
    transports: TCP | UDP,
    ports: &[PORTS[0], PORTS[1]],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

const PORTS: [u16; 2] = [5007, 5560];

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    if is_melsoft(d) {
        return Probe::Certain(&LABEL);
    }
    let h = cx.hints;
    let on_port = PORTS.iter().any(|&p| h.port(p));
    if on_port && d.len() <= 40 && h.nth < 3 {
        Probe::Unsure
    } else {
        Probe::NotForUs
    }
}

/// A whole MELSOFT message.
fn is_melsoft(d: &[u8]) -> bool {
    let (Some(&kind), Some(magic), Some(l)) = (d.first(), d.get(3..7), d.get(19..21)) else {
        return false;
    };
    d.len() > 40
        && (kind == 0x57 || kind == 0xd7)
        && magic == [0, 0, 0x11, 0x11]
        && usize::from(u16::from_le_bytes([l[0], l[1]])) + 21 == d.len()
}

#[cfg(test)]
mod tests;
