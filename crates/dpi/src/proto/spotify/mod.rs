//! Spotify: LAN discovery broadcasts (`SpotUdp0` on UDP 57621) and the access-point protocol
//! over TCP, whose hello starts `00 04` (version) then a 32-bit length of the whole message.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP, UDP};

/// nDPI's Spotify label.
pub static LABEL: Label = label("Spotify", "Music");

/// The Spotify inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "spotify",
    transports: TCP | UDP,
    ports: &[57621, 4070],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let ok = if cx.hints.transport == UDP {
        d.starts_with(b"SpotUdp0")
    } else {
        cx.hints.dir == crate::Dir::ToServer
            && d.starts_with(&[0, 4])
            && d.get(2..6).is_some_and(|l| {
                u32::from_be_bytes([l[0], l[1], l[2], l[3]]) as usize == d.len()
            })
            && d.len() > 16
    };
    if ok {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
