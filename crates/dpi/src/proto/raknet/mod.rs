//! RakNet: unconnected (offline) messages carry a 16-byte magic (`00ffff00 fefefefe fdfdfdfd
//! 12345678`) at an offset fixed by the message id: pings and pongs after their timestamp (and
//! GUID), open-connection requests and replies right after the id.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, UDP};

/// nDPI's RakNet label.
pub static LABEL: Label = label("RakNet", "Game");

/// The RakNet inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "raknet",
    transports: UDP,
    ports: &[19132, 19133],
    probe,
};

const MAGIC: &[u8; 16] = b"\x00\xff\xff\x00\xfe\xfe\xfe\xfe\xfd\xfd\xfd\xfd\x12\x34\x56\x78";

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let at = match d.first() {
        // Unconnected ping (and open-connections ping): id, time.
        Some(0x01 | 0x02) => 9,
        // Open connection request/reply 1 and 2, connection refused, already connected,
        // no free incoming connections, incompatible protocol, IP recently connected.
        Some(0x05..=0x08 | 0x12 | 0x14 | 0x17 | 0x19 | 0x1a) => 1,
        // Unconnected pong: id, time, server GUID.
        Some(0x1c) => 17,
        _ => return Probe::NotForUs,
    };
    if d.get(at..at + 16) == Some(MAGIC) {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
