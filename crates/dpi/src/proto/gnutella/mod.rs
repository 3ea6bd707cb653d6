//! Gnutella: the TCP handshake (`GNUTELLA CONNECT/0.6`, `GNUTELLA/0.6 200 OK`, `GIV`), the
//! 23-byte UDP message header (16-byte GUID, descriptor, TTL, hops, little-endian payload
//! length that must equal the rest of the datagram) and GTK-Gnutella's `GND` UDP framing.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP, UDP};

/// nDPI's Gnutella label.
pub static LABEL: Label = label("Gnutella", "Download");

/// The Gnutella inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "gnutella",
    transports: TCP | UDP,
    ports: &[6346, 6347],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

/// Descriptors of Gnutella 0.6 and its common extensions: ping, pong, bye, vendor messages
/// (0x31, 0x32), push, DHT (0x44), query, query hit.
const DESCRIPTORS: &[u8] = &[0x00, 0x01, 0x02, 0x31, 0x32, 0x40, 0x44, 0x80, 0x81];

/// A whole Gnutella UDP message: the header's length matches the datagram.
fn is_udp_message(d: &[u8]) -> bool {
    let (Some(guid), Some(&desc), Some(&ttl), Some(&hops), Some(len)) =
        (d.get(..16), d.get(16), d.get(17), d.get(18), d.get(19..23))
    else {
        return false;
    };
    let len = u32::from_le_bytes([len[0], len[1], len[2], len[3]]) as usize;
    DESCRIPTORS.contains(&desc)
        && u16::from(ttl) + u16::from(hops) <= 16
        && guid.iter().any(|&b| b != 0)
        && len.checked_add(23) == Some(d.len())
}

/// GTK-Gnutella's semi-reliable UDP layer: "GND", flags, sequence, fragment of count.
fn is_gnd(d: &[u8]) -> bool {
    let (Some(b"GND"), Some(&flags), Some(&part), Some(&count)) =
        (d.get(..3), d.get(3), d.get(6), d.get(7))
    else {
        return false;
    };
    flags & 0xe0 == 0 && part >= 1 && count >= 1 && part <= count
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    if cx.hints.transport == TCP {
        if d.starts_with(b"GNUTELLA CONNECT/")
            || d.starts_with(b"GNUTELLA/0.")
            || (d.starts_with(b"GIV ") && d.contains(&b':'))
        {
            return Probe::Certain(&LABEL);
        }
        return if d.len() < 17 && b"GNUTELLA CONNECT/".starts_with(d) {
            Probe::Unsure
        } else {
            Probe::NotForUs
        };
    }
    if is_gnd(d) || is_udp_message(d) {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
