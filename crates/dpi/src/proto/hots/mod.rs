//! Heroes of the Storm (Blizzard, UDP 1119/1120/3724/6113, as nDPI requires): 20 to 122
//! bytes, `40 00` at byte 14, and either a zero prefix of 14 bytes or a `03 00` / `34 00`
//! command at byte 2.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, UDP};

/// nDPI's Heroes_of_the_Storm label.
pub static LABEL: Label = label("Heroes_of_the_Storm", "Game");

/// The Heroes of the Storm inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "hots",
    transports: UDP,
    ports: &[1119, 1120, 3724, 6113],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let port = [1119, 1120, 3724, 6113].iter().any(|&p| cx.hints.port(p));
    let shape = (20..=122).contains(&d.len())
        && d.get(14..16) == Some(&[0x40, 0])
        && (matches!(d.get(2..4), Some(&[3, 0] | &[0x34, 0]))
            || d.get(..14).is_some_and(|z| z.iter().all(|&b| b == 0)));
    if port && shape {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
