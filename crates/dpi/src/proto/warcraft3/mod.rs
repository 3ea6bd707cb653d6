//! Classic Battle.net and Warcraft III game messages (nDPI's `Warcraft3`, whose dissector
//! takes both the Battle.net `0xFF` framing and the Warcraft III `0xF7` framing). Both frame
//! every message as a one-byte class, a message id and a little-endian u16 length that counts
//! the 4-byte header. Descriptions used: bnetdocs.org ("Battle.net v1 TCP Messages (SID)",
//! C>S 0x50 SID_AUTH_INFO; "W3GS Messages", W3GS_SEARCHGAME 0x2F, W3GS_GAMEINFO 0x30,
//! W3GS_CREATEGAME 0x31). Wireshark has no dissector for either.
//!
//! * TCP (Battle.net, BNCS): the client opens with the protocol selector byte `0x01` (game
//!   protocol), then SID_AUTH_INFO: `FF 50`, its length, protocol id 0, a platform code
//!   (`IX86`, `PMAC`, `XMAC`, sent as little-endian DWORDs: `68XI`, ...), a product code of a
//!   Battle.net game (`STAR`, `SEXP`, `WAR3`, `W3XP`, `D2DV`, ...), five DWORDs, and two
//!   NUL-terminated strings (country abbreviation and name) that end exactly at the length. A
//!   selector alone in the first segment is buffered until the message follows.
//! * UDP (Warcraft III LAN, port 6112): `F7 2F` search or `F7 31` create (16 bytes) or `F7 30`
//!   game information, the length equal to the datagram, and the product `WAR3`/`W3XP`.
//!
//! Every product is labelled `Warcraft3` as nDPI does: nDPI's `Starcraft` is StarCraft II (its
//! logon servers on port 1119), never this framing.

use crate::proto::label;
use crate::{Cx, Dir, Inspector, Label, Probe, TCP, UDP};

/// nDPI's Warcraft3 label.
pub static LABEL: Label = label("Warcraft3", "Game");

/// The Warcraft3 (classic Battle.net, W3GS) inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "warcraft3",
    transports: TCP | UDP,
    ports: &[6112],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

/// Platform codes as they appear on the wire (little-endian DWORDs of `IX86`, `PMAC`, `XMAC`).
const PLATFORMS: &[&[u8; 4]] = &[b"68XI", b"CAMP", b"CAMX"];

/// Battle.net v1 product codes on the wire (`STAR`, `SEXP`, `JSTR`, `SSHR`, `W2BN`, `D2DV`,
/// `D2XP`, `DRTL`, `DSHR`, `WAR3`, `W3XP`, reversed).
const PRODUCTS: &[&[u8; 4]] = &[
    b"RATS", b"PXES", b"RTSJ", b"RHSS", b"NB2W", b"VD2D", b"PX2D", b"LTRD", b"RHSD", b"3RAW",
    b"PX3W",
];

/// Warcraft III's products on the wire (`WAR3`, `W3XP`).
const W3_PRODUCTS: &[&[u8; 4]] = &[b"3RAW", b"PX3W"];

fn u16le(d: &[u8], at: usize) -> Option<usize> {
    let b = d.get(at..at + 2)?;
    Some(usize::from(u16::from_le_bytes([b[0], b[1]])))
}

fn is_one_of(field: Option<&[u8]>, set: &[&[u8; 4]]) -> bool {
    field.is_some_and(|f| set.iter().any(|s| s.as_slice() == f))
}

/// SID_AUTH_INFO from the client, at the start of `m` (after the selector byte).
fn auth_info(m: &[u8]) -> bool {
    if m.get(..2) != Some(&[0xff, 0x50]) {
        return false;
    }
    // Header 4, nine DWORDs 36, two strings of at least their NUL.
    let Some(len) = u16le(m, 2).filter(|&l| (42..=512).contains(&l)) else {
        return false;
    };
    let Some(msg) = m.get(..len) else {
        return false;
    };
    if msg.get(4..8) != Some(&[0, 0, 0, 0])
        || !is_one_of(msg.get(8..12), PLATFORMS)
        || !is_one_of(msg.get(12..16), PRODUCTS)
    {
        return false;
    }
    // Exactly two NUL-terminated strings fill the rest, the second ending the message.
    let strings = msg.get(40..).unwrap_or(&[]);
    strings.last() == Some(&0) && strings.iter().filter(|&&b| b == 0).count() == 2
}

fn tcp(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    if cx.hints.dir != Dir::ToServer || d.first() != Some(&0x01) {
        return Probe::NotForUs;
    }
    let rest = d.get(1..).unwrap_or(&[]);
    if rest.is_empty() && cx.hints.nth == 0 {
        // The selector alone in the first segment: the message comes in the next.
        cx.incomplete();
        return Probe::Unsure;
    }
    if rest.len() < 4 && rest.first() == Some(&0xff) {
        cx.incomplete();
        return Probe::Unsure;
    }
    if rest.first() == Some(&0xff) && rest.get(1) == Some(&0x50) {
        if let Some(len) = u16le(rest, 2) {
            if rest.len() < len && len <= 512 {
                cx.incomplete();
                return Probe::Unsure;
            }
        }
    }
    if auth_info(rest) {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

fn udp(cx: &Cx<'_>) -> Probe {
    let d = cx.data;
    let (Some(&0xf7), Some(&id), Some(len)) = (d.first(), d.get(1), u16le(d, 2)) else {
        return Probe::NotForUs;
    };
    let product = is_one_of(d.get(4..8), W3_PRODUCTS);
    let ok = len == d.len()
        && product
        && match id {
            // SEARCHGAME / CREATEGAME: product, version, a zero or a counter.
            0x2f | 0x31 => len == 16,
            // GAMEINFO: product, host counter, players, then the game name and more.
            0x30 => len > 20,
            _ => false,
        };
    if ok {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    if cx.hints.transport == TCP {
        tcp(cx)
    } else {
        udp(cx)
    }
}

#[cfg(test)]
mod tests;
