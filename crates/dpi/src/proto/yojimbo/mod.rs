//! Yojimbo / netcode (netcode.io, nDPI's `Yojimbo`): a connection-based client/server protocol
//! over UDP for games. Everything after the connection request is encrypted, so the client's
//! connection request is what can be recognised. The netcode standard (STANDARD.md of
//! mas-bandwidth/netcode, "Connection Request Packet") lays it out as:
//!
//! * prefix byte 0 (packet type 0, no sequence bytes),
//! * version info: 13 bytes, `"NETCODE 1.02"` and a NUL,
//! * protocol id (u64), connect token expire timestamp (u64), connect token nonce (24 bytes),
//! * the encrypted private connect token (1024 bytes),
//!
//! 1078 bytes in all; servers ignore a connection request of any other size. Checked: the exact
//! length, the prefix byte, and the version info `NETCODE 1.0x` with its NUL (1.01 and 1.02 are
//! the published versions) — 15 fixed bytes and the length, so no port is needed (netcode has
//! no assigned port).

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, UDP};

/// nDPI's Yojimbo label: the name as its dissector registers it (src/lib/protocols/yojimbo.c).
/// Its category line in ndpi_main.c could not be read here (the stored copies predate it):
/// "Game" is assumed, netcode being a library for game servers, as nDPI files other games.
pub static LABEL: Label = label("Yojimbo", "Game");

/// The Yojimbo (netcode) inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "yojimbo",
    transports: UDP,
    ports: &[],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

/// Size of a connection request packet (netcode STANDARD.md).
const REQUEST_LEN: usize = 1 + 13 + 8 + 8 + 24 + 1024;

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    if d.len() != REQUEST_LEN || d.first() != Some(&0) {
        return Probe::NotForUs;
    }
    let Some(version) = d.get(1..14) else {
        return Probe::NotForUs;
    };
    let ok = version.starts_with(b"NETCODE 1.0")
        && version.get(11).is_some_and(u8::is_ascii_digit)
        && version.get(12) == Some(&0);
    if ok {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
