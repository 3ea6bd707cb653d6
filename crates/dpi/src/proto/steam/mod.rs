//! Steam (nDPI's Steam): the Steam client's TCP connection to a connection manager (CM), and
//! the Steam In-Home Streaming / Remote Play discovery protocol on udp/27036, which Steam
//! clients and Steam Link devices broadcast to find each other.
//!
//! CM over TCP (ValvePython `steam` 1.4.4, `steam/core/connection.py`, and SteamKit's
//! `TcpConnection`, the open client implementations): every message is framed by a
//! little-endian u32 length of the message and the magic `VT01`; the first messages
//! (ChannelEncryptRequest/Response/Result, EMsg 1303-1305) are clear, the rest encrypted
//! inside the same framing. Checked: the magic, and the length covering the segment exactly
//! or reaching the next frame's header (another `VT01` four bytes on).
//!
//! Discovery over UDP (reference: the write-up at codingrange.com, "Steam In-Home Streaming
//! Discovery Protocol", and Valve's `steammessages_remoteclient_discovery.proto`, as
//! Wireshark's `steam_ihs_discovery` dissector implements them): an 8-byte signature
//! `FF FF FF FF 21 4C 5F A0`, a little-endian u32 header length, a protobuf
//! `CMsgRemoteClientBroadcastHeader` (client id = 1, message type = 2, instance id = 3, all
//! varints), a little-endian u32 body length and the body. Checked: the signature, both
//! lengths adding up to the datagram exactly, and the header's fields (only numbers 1-3,
//! varint wire type, a message type of 0-10 as Wireshark lists).

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP, UDP};

/// nDPI's Steam label.
pub static LABEL: Label = label("Steam", "Game");

/// The Steam inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "steam",
    transports: TCP | UDP,
    ports: &[27036],
    labels: &[&LABEL],
    min_udp: 16,
    ports_required: false,
    probe,
};

const SIGNATURE: &[u8] = b"\xff\xff\xff\xff\x21\x4c\x5f\xa0";
/// The highest message type (Device Streaming Cancel Request).
const MAX_MSG_TYPE: u64 = 10;

fn u32_at(d: &[u8], at: usize) -> Option<usize> {
    d.get(at..at.checked_add(4)?)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
}

/// A protobuf varint at the start of `d`: its value and length (at most 10 bytes).
fn varint(d: &[u8]) -> Option<(u64, usize)> {
    let mut v = 0u64;
    for (i, &b) in d.iter().take(10).enumerate() {
        v |= u64::from(b & 0x7f) << (7 * i);
        if b & 0x80 == 0 {
            return Some((v, i + 1));
        }
    }
    None
}

/// The broadcast header: varint fields 1-3 only, a known message type.
fn header_ok(mut h: &[u8]) -> bool {
    for _ in 0..8 {
        let Some((&key, rest)) = h.split_first() else {
            return true;
        };
        let Some((value, n)) = varint(rest) else {
            return false;
        };
        match key {
            0x08 | 0x18 => {}
            0x10 if value <= MAX_MSG_TYPE => {}
            _ => return false,
        }
        h = rest.get(n..).unwrap_or_default();
    }
    h.is_empty()
}

const CM_MAGIC: &[u8] = b"VT01";

/// A CM frame: length, `VT01`, then exactly that many bytes (or the next frame's header).
fn cm_frame(d: &[u8]) -> bool {
    let (Some(len), Some(CM_MAGIC)) = (u32_at(d, 0), d.get(4..8)) else {
        return false;
    };
    let Some(end) = len.checked_add(8) else {
        return false;
    };
    len >= 4 && (end == d.len() || d.get(end + 4..end + 8) == Some(CM_MAGIC))
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    if cx.hints.transport == TCP {
        return if cm_frame(d) {
            Probe::Certain(&LABEL)
        } else {
            Probe::NotForUs
        };
    }
    if !d.starts_with(SIGNATURE) {
        return Probe::NotForUs;
    }
    let Some(hl) = u32_at(d, 8) else {
        return Probe::NotForUs;
    };
    let body_len_at = 12usize.saturating_add(hl);
    let (Some(header), Some(bl)) = (d.get(12..body_len_at), u32_at(d, body_len_at)) else {
        return Probe::NotForUs;
    };
    let total = body_len_at.checked_add(4).and_then(|n| n.checked_add(bl));
    if hl > 0 && total == Some(d.len()) && header_ok(header) {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
