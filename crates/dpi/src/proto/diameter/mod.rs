//! Diameter (RFC 6733): version 1, a 24-bit length equal to the segment (or longer, for a
//! message cut by TCP), command flags with the reserved bits clear, a command code of the base
//! protocol or its applications.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP, UDP};

/// nDPI's Diameter label.
pub static LABEL: Label = label("Diameter", "Network");

/// The Diameter inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "diameter",
    transports: TCP | UDP,
    ports: &[3868],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let (Some(&1), Some(l), Some(&flags), Some(c)) = (d.first(), d.get(1..4), d.get(4), d.get(5..8))
    else {
        return Probe::NotForUs;
    };
    let len = (usize::from(l[0]) << 16) | (usize::from(l[1]) << 8) | usize::from(l[2]);
    let code = (u32::from(c[0]) << 16) | (u32::from(c[1]) << 8) | u32::from(c[2]);
    // Base protocol (257-285), credit control, NASREQ, 3GPP and other applications (< 8400).
    let code_ok = (257..=8400).contains(&code) || (8_388_600..=8_388_730).contains(&code);
    let len_ok = len >= 20 && len % 4 == 0 && (len == d.len() || (len > d.len() && d.len() >= 512));
    if flags & 0x0f == 0 && code_ok && len_ok {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
