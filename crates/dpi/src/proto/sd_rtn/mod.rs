//! Agora's SD-RTN: the UDP join message carries a tag `\x04SNI` at byte 12, a zero byte, a
//! little-endian two-byte length and the edge server's name, which nDPI reports as the flow's
//! server name.

use crate::proto::label;
use crate::{Cx, Field, Inspector, Label, Probe, UDP};

/// nDPI's SD-RTN label.
pub static LABEL: Label = label("SD-RTN", "Media");

/// The SD-RTN inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "sd_rtn",
    transports: UDP,
    ports: &[8130],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    if d.get(12..17) != Some(b"\x04SNI\x00") {
        return Probe::NotForUs;
    }
    let Some(n) = d.get(17..19).map(|l| usize::from(u16::from_le_bytes([l[0], l[1]]))) else {
        return Probe::NotForUs;
    };
    match d.get(19..19 + n) {
        Some(name) if n > 0 && name.iter().all(|b| b.is_ascii_graphic()) => {
            cx.set(Field::Sni, name);
            Probe::Certain(&LABEL)
        }
        _ => Probe::NotForUs,
    }
}

#[cfg(test)]
mod tests;
