//! Teredo (RFC 4380): IPv6 in UDP, optionally after an authentication indicator (`00 01`, id
//! and auth lengths, nonce, confirmation) and/or an origin indicator (`00 00`, port, address).
//! The IPv6 header must be version 6 with a payload length that fills the datagram.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, UDP};

/// nDPI's Teredo label.
pub static LABEL: Label = label("Teredo", "Network");

/// The Teredo inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "teredo",
    transports: UDP,
    ports: &[3544],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let mut at = 0;
    if d.starts_with(&[0, 1]) {
        let (Some(&id), Some(&au)) = (d.get(2), d.get(3)) else {
            return Probe::NotForUs;
        };
        at = 4 + usize::from(id) + usize::from(au) + 9;
    }
    if d.get(at..at + 2) == Some(&[0, 0]) {
        at += 8;
    }
    let ip6 = d.get(at..).unwrap_or(&[]);
    let (Some(&v), Some(l)) = (ip6.first(), ip6.get(4..6)) else {
        return Probe::NotForUs;
    };
    let plen = usize::from(u16::from_be_bytes([l[0], l[1]]));
    if v >> 4 == 6 && plen + 40 == ip6.len() {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
