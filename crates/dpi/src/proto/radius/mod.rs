//! RADIUS (RFC 2865/2866, and CoA/Disconnect of RFC 5176): a known code, an identifier, a
//! length equal to the datagram (20 to 4096 bytes) and attributes that fill it exactly.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, UDP};

/// nDPI's Radius label.
pub static LABEL: Label = label("Radius", "Network");

/// The RADIUS inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "radius",
    transports: UDP,
    ports: &[1812, 1813, 1645, 1646, 3799],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn attributes_fit(d: &[u8]) -> bool {
    let mut at = 20;
    for _ in 0..256 {
        if at == d.len() {
            return true;
        }
        match d.get(at + 1) {
            Some(&l) if l >= 2 => at += usize::from(l),
            _ => return false,
        }
    }
    false
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let (Some(&code), Some(l)) = (d.first(), d.get(2..4)) else {
        return Probe::NotForUs;
    };
    let len = usize::from(u16::from_be_bytes([l[0], l[1]]));
    let ok = matches!(code, 1..=5 | 11..=13 | 40..=45)
        && (20..=4096).contains(&len)
        && len == d.len()
        && attributes_fit(d);
    if ok {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
