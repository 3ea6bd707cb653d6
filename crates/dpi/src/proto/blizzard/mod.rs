//! Blizzard games (nDPI's Blizzard), beside the World of Warcraft greeting that `wow` reads:
//!
//! * Battle.net on tcp/1119: the client's first message opens with the fixed bytes
//!   `41 00 00 0a 66 52 ed c6`.
//! * Hearthstone-style framing on tcp/1119 and 3724: a 4-byte message type, then a
//!   little-endian u32 body length equal to the rest of the segment.
//! * A `WORLD OF WARCRAFT CONNECTION` greeting at the very start of the stream (no length
//!   byte) is World of Warcraft, as nDPI names it.
//! * Warcraft Rumble over UDP: the client's first datagram is 18 bytes ending in a
//!   little-endian sequence number 1; or a 23-byte hello with a fixed 23-byte pattern.

use crate::proto::{label, wow};
use crate::{Cx, Dir, Inspector, Label, Probe, TCP, UDP};

/// nDPI's Blizzard label.
pub static LABEL: Label = label("Blizzard", "Game");

/// The Blizzard inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "blizzard",
    transports: TCP | UDP,
    ports: &[1119, 3724],
    labels: &[&LABEL, &wow::LABEL],
    min_udp: 18,
    ports_required: false,
    probe,
};

const BNET_HELLO: &[u8] = b"\x41\x00\x00\x0a\x66\x52\xed\xc6";
const WOW_GREETING: &[u8] = b"WORLD OF WARCRAFT CONNECTION";
const RUMBLE_HELLO: &[u8; 23] =
    b"\xff\xff\xff\xff\xa3\x1f\xb6\x1e\x00\x00\x40\x01\x00\x00\x00\x00\x00\x00\x00\x04\x03\x02\x01";

fn tcp(cx: &Cx<'_>) -> Option<&'static Label> {
    let d = cx.data;
    if d.starts_with(WOW_GREETING) {
        return Some(&wow::LABEL);
    }
    let h = &cx.hints;
    if h.server_port == 1119 && h.dir == Dir::ToServer && d.starts_with(BNET_HELLO) {
        return Some(&LABEL);
    }
    if h.port(1119) || h.port(3724) {
        let body = d.get(4..8).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
        if body.is_some_and(|n| n > 0 && n as usize == d.len() - 8) {
            return Some(&LABEL);
        }
    }
    None
}

fn udp(cx: &Cx<'_>) -> Option<&'static Label> {
    let d = cx.data;
    if d == RUMBLE_HELLO {
        return Some(&LABEL);
    }
    let first_from_client = cx.hints.dir == Dir::ToServer && cx.hints.nth == 0;
    let seq1 = d.len() == 18 && d.get(14..18) == Some(&[1, 0, 0, 0]);
    (first_from_client && seq1).then_some(&LABEL)
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    let found = if cx.hints.transport == TCP {
        tcp(cx)
    } else {
        udp(cx)
    };
    match found {
        Some(l) => Probe::Certain(l),
        None => Probe::NotForUs,
    }
}

#[cfg(test)]
mod tests;
