//! Among Us (nDPI's AmongUs): the client's Hazel Hello that opens a game-server session on
//! udp/22023.
//!
//! Reference: the community "Among Us Protocol" write-up (roobscoob/among-us-protocol,
//! sections "Hazel packets" and "Hello") and the Hazel-Networking library it runs on: a Hazel
//! packet type byte (8 = Hello), a big-endian u16 nonce, the Hazel version byte (0), the
//! client's version as a little-endian i32 (`year*25000 + month*1800 + day*50 + revision`),
//! the player name as a Hazel packed length and UTF-8 bytes, then the auth nonce and more.
//!
//! Checked: type 8, Hazel version 0, a client version that decodes to a date (year
//! 2018-2099, month 1-12, day 1-31), a printable name of 1-32 bytes, and at least the 4-byte
//! nonce after it.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, UDP};

/// nDPI's AmongUs label.
pub static LABEL: Label = label("AmongUs", "Game");

/// The Among Us inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "amongus",
    transports: UDP,
    ports: &[22023],
    labels: &[&LABEL],
    min_udp: 13,
    ports_required: false,
    probe,
};

const HELLO: u8 = 8;
const MAX_NAME: usize = 32;

fn version_ok(v: u32) -> bool {
    let (year, rest) = (v / 25000, v % 25000);
    let (month, day) = (rest / 1800, rest % 1800 / 50);
    (2018..=2099).contains(&year) && (1..=12).contains(&month) && (1..=31).contains(&day)
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let (Some(&HELLO), Some(&0), Some(v), Some(&n)) = (d.first(), d.get(3), d.get(4..8), d.get(8))
    else {
        return Probe::NotForUs;
    };
    let name_len = usize::from(n);
    let version = u32::from_le_bytes([v[0], v[1], v[2], v[3]]);
    let name_ok = (1..=MAX_NAME).contains(&name_len)
        && d.get(9..9 + name_len)
            .is_some_and(|s| s.iter().all(|&b| b >= 0x20 && b != 0x7f));
    if version_ok(version) && name_ok && d.len() >= 9 + name_len + 4 {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
