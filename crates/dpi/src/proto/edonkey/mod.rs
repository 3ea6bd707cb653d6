//! eDonkey 2000 / eMule (nDPI's eDonkey): the eD2k client-server and client-client protocol.
//!
//! Reference: "The eMule Protocol Specification" (Kulbak, Bickson, 2005), sections 1.4 (TCP
//! header: a protocol byte, 0xE3 for eDonkey, 0xC5 for eMule extensions, 0xD4 for
//! zlib-packed, then a little-endian u32 size of what follows, opcode included), 6.2 (server
//! messages) and 6.3 (client messages), 7 (UDP: protocol byte and opcode, no size).
//!
//! Checked over TCP: the size covers the segment exactly, or the segment carries the next
//! packet's protocol byte right after it; and the packet is one a connection opens with, its
//! fixed fields consistent with the size:
//! * `E3 01` login request (client to server: hash, client id, port, tag count) or Hello
//!   (client to client: the hash size byte 16 first);
//! * `E3 4C` Hello answer; `E3 40` ID change (4, 8 or 12 bytes); `E3 38` server message
//!   (a u16 string length that fills the packet); `C5 01` eMule info (protocol version, tag count).
//!
//! Over UDP, the global server status request `E3 96` with its 4-byte challenge (eMule sets
//! its upper half to 0x55AA, as the capture shows) and the answer `E3 97` echoing it; and Kad
//! (protocol byte 0xE4) routing requests, `KADEMLIA2_REQ` (0x21): a request type (2 find
//! value, 4 store, 11 find node), the 16-byte target and the 16-byte recipient id, 35 bytes
//! exactly. Kad's two-byte pings say too little, and with obfuscation on (aMule's default)
//! no Kad datagram shows any structure.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP, UDP};

/// nDPI's eDonkey label.
pub static LABEL: Label = label("eDonkey", "Download");

/// The eDonkey inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "edonkey",
    transports: TCP | UDP,
    ports: &[4661, 4662, 4665, 4672],
    labels: &[&LABEL],
    min_udp: 6,
    ports_required: false,
    probe,
};

const EDONKEY: u8 = 0xe3;
const EMULE: u8 = 0xc5;
const PACKED: u8 = 0xd4;

/// Tag lists in the opening messages are short (a dozen tags); more is not eD2k.
const MAX_TAGS: u32 = 64;
/// The opening messages are small; a Hello carries a few hundred bytes at most.
const MAX_OPENING: usize = 4096;

fn u32_at(d: &[u8], at: usize) -> Option<u32> {
    d.get(at..at.checked_add(4)?)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    let ok = if cx.hints.transport == TCP {
        tcp_opening(cx.data)
    } else {
        udp_status(cx.data)
    };
    if ok {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

/// A whole opening message (or one followed by the next packet's header) on TCP.
fn tcp_opening(d: &[u8]) -> bool {
    let (Some(&proto), Some(size), Some(&op)) = (d.first(), u32_at(d, 1), d.get(5)) else {
        return false;
    };
    let size = size as usize;
    if size == 0 || size > MAX_OPENING {
        return false;
    }
    let end = 5 + size;
    let framed = match d.len().cmp(&end) {
        std::cmp::Ordering::Equal => true,
        std::cmp::Ordering::Greater => d
            .get(end)
            .is_some_and(|b| [EDONKEY, EMULE, PACKED].contains(b)),
        std::cmp::Ordering::Less => false,
    };
    if !framed {
        return false;
    }
    // The message body, opcode excluded.
    let Some(body) = d.get(6..end) else {
        return false;
    };
    let tags_at = |at: usize| u32_at(body, at).is_some_and(|n| n <= MAX_TAGS);
    match (proto, op) {
        // Hello: hash size 16, hash, client id, port, tag count (then tags, server address).
        (EDONKEY, 0x01) if body.first() == Some(&16) => body.len() >= 1 + 16 + 4 + 2 + 4 + 6 && tags_at(23),
        // Login request: hash, client id, port, tag count, tags.
        (EDONKEY, 0x01) => body.len() >= 16 + 4 + 2 + 4 && tags_at(22),
        // Hello answer: as Hello without the hash size byte.
        (EDONKEY, 0x4c) => body.len() >= 16 + 4 + 2 + 4 + 6 && tags_at(22),
        // ID change: the client id, optionally TCP flags and the auxiliary port.
        (EDONKEY, 0x40) => [4, 8, 12].contains(&body.len()),
        // Server message: a u16 length and that many bytes of text.
        (EDONKEY, 0x38) => body
            .get(..2)
            .is_some_and(|l| usize::from(u16::from_le_bytes([l[0], l[1]])) + 2 == body.len()),
        // eMule info: client version, protocol version (1; aMule sends its OS-info variant
        // with 0xFF, as captured), tag count.
        (EMULE, 0x01) => body.len() >= 6 && matches!(body.get(1), Some(1 | 0xff)) && tags_at(2),
        _ => false,
    }
}

const KAD: u8 = 0xe4;
/// KADEMLIA2_REQ: protocol, opcode, request type, target and recipient ids.
const KAD2_REQ_LEN: usize = 3 + 16 + 16;

/// The global server status request and its answer, or a Kad routing request, over UDP.
fn udp_status(d: &[u8]) -> bool {
    if let (Some(&KAD), Some(&0x21), Some(kind)) = (d.first(), d.get(1), d.get(2)) {
        return d.len() == KAD2_REQ_LEN && [2, 4, 11].contains(kind);
    }
    let (Some(&EDONKEY), Some(&op), Some(challenge)) = (d.first(), d.get(1), u32_at(d, 2)) else {
        return false;
    };
    challenge >> 16 == 0x55aa
        && match op {
            0x96 => d.len() == 6,
            // Challenge, users, files, then optional limits and flags (at most 8 u32).
            0x97 => (14..=6 + 8 * 4).contains(&d.len()) && (d.len() - 2).is_multiple_of(4),
            _ => false,
        }
}

#[cfg(test)]
mod tests;
