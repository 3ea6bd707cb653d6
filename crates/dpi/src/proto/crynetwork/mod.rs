//! CryEngine's game networking (nDPI's CryNetwork): the first byte is the datagram's length
//! less 10, with fixed bytes at offsets 16 (1), 20 (7) and 24-25 (`03 07`).

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, UDP};

/// nDPI's CryNetwork label.
pub static LABEL: Label = label("CryNetwork", "Game");

/// The CryNetwork inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "crynetwork",
    transports: UDP,
    ports: &[],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let ok = d.len() >= 26
        && d.first().map(|&l| usize::from(l) + 10) == Some(d.len())
        && d.get(16) == Some(&1)
        && d.get(20) == Some(&7)
        && d.get(24..26) == Some(&[3, 7]);
    if ok {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
