//! League of Legends: Wild Rift over UDP, as nDPI tests it: a 22-byte packet with a fixed
//! first and last word, or a 69-byte opening (`04000000`) answered by a 359-byte packet
//! (`10000000`).

use crate::proto::label;
use crate::{Cx, Dir, Inspector, Label, Probe, UDP};

/// nDPI's LoLWildRift label.
pub static LABEL: Label = label("LoLWildRift", "Game");

/// The Wild Rift inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "lolwildrift",
    transports: UDP,
    ports: &[],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let first = d.get(..4);
    if d.len() == 22
        && first == Some(&[0x01, 0x02, 0xc8, 0x41])
        && d.get(18..22) == Some(&[0x41, 0x30, 0x42, 0x31])
    {
        return Probe::Certain(&LABEL);
    }
    match cx.hints.dir {
        Dir::ToServer if d.len() == 69 && first == Some(&[4, 0, 0, 0]) => Probe::Unsure,
        Dir::ToClient if d.len() == 359 && first == Some(&[0x10, 0, 0, 0]) => {
            Probe::Certain(&LABEL)
        }
        _ => Probe::NotForUs,
    }
}

#[cfg(test)]
mod tests;
