//! Riot Games' UDP game traffic: datagrams that end with the trailer `aaaaaaaa bbbbbbbb`, or
//! the 53-byte connection request with its fixed 8-byte trailer, as nDPI recognises them.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, UDP};

/// nDPI's RiotGames label.
pub static LABEL: Label = label("RiotGames", "Game");

/// The Riot Games inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "riotgames",
    transports: UDP,
    ports: &[],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let tail = d.len().checked_sub(8).and_then(|i| d.get(i..));
    let ok = match tail {
        Some(t) if d.len() > 8 => {
            t == [0xaa, 0xaa, 0xaa, 0xaa, 0xbb, 0xbb, 0xbb, 0xbb]
                || (d.len() == 53 && t == [0x3c, 0xb1, 0x1f, 0x2d, 0xea, 0x23, 0x46, 0x0c])
        }
        _ => false,
    };
    if ok {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
