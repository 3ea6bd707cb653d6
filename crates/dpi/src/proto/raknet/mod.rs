//! RakNet: unconnected (offline) messages carry a 16-byte magic (`00ffff00 fefefefe fdfdfdfd
//! 12345678`) at an offset fixed by the message id: pings and pongs after their timestamp (and
//! GUID), open-connection requests and replies right after the id. Connected datagrams (frame
//! sets, ids 0x80-0x8d) are accepted when their frames, parsed by their reliability and bit
//! lengths, fill the datagram exactly and the first frame holds one of RakNet's own connection
//! messages (ping, pong, connection request and answers, disconnect): an RTP packet can fill a
//! datagram by chance (false_positives.pcapng). ACK and NAK datagrams (0xc0, 0xa0) are accepted
//! when their records tile the datagram exactly; an unconnected pong also when its string's
//! length ends the datagram (nDPI's test; raknet.pcap has one with another magic).

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, UDP};

/// nDPI's RakNet label.
pub static LABEL: Label = label("RakNet", "Game");

/// The RakNet inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "raknet",
    transports: UDP,
    ports: &[19132, 19133],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

const MAGIC: &[u8; 16] = b"\x00\xff\xff\x00\xfe\xfe\xfe\xfe\xfd\xfd\xfd\xfd\x12\x34\x56\x78";

/// A frame set whose frames end exactly where the datagram does.
fn is_frame_set(d: &[u8]) -> bool {
    let mut at = 4; // id, 24-bit sequence number
    let mut first_body = None;
    for _ in 0..16 {
        let (Some(&flags), Some(bits)) = (d.get(at), d.get(at + 1..at + 3)) else {
            return false;
        };
        let len = usize::from(u16::from_be_bytes([bits[0], bits[1]])).div_ceil(8);
        let rel = flags >> 5;
        if len == 0 || flags & 0x0f != 0 {
            return false;
        }
        at += 3;
        if matches!(rel, 2 | 3 | 4 | 6 | 7) {
            at += 3; // message index
        }
        if matches!(rel, 1 | 4) {
            at += 3; // sequence index
        }
        if matches!(rel, 1 | 3 | 4 | 7) {
            at += 4; // order index, channel
        }
        if flags & 0x10 != 0 {
            at += 10; // split count, id, index
        }
        first_body.get_or_insert(at);
        at += len;
        if at == d.len() {
            // Connected ping and pong, connection request, accepted, new incoming, disconnect.
            let id = first_body.and_then(|b| d.get(b));
            return matches!(id, Some(0x00 | 0x03 | 0x09 | 0x10 | 0x13 | 0x15));
        }
        if at > d.len() {
            return false;
        }
    }
    false
}

/// An ACK (0xc0) or NAK (0xa0) datagram: a record count (1-64), then that many records — a
/// single 24-bit sequence number (flag 1) or a range of two (flag 0) — ending the datagram.
fn is_ack(d: &[u8]) -> bool {
    let Some(count) = d.get(1..3).map(|c| u16::from_be_bytes([c[0], c[1]])) else {
        return false;
    };
    if !(1..=64).contains(&count) {
        return false;
    }
    let mut at = 3;
    for _ in 0..count {
        at += match d.get(at) {
            Some(1) => 4,
            Some(0) => 7,
            _ => return false,
        };
    }
    at == d.len()
}

/// An unconnected pong (0x1c): time, server GUID, the offline magic, then the server's string
/// with its 16-bit length, which ends the datagram (nDPI checks that length, not the magic).
fn is_pong(d: &[u8]) -> bool {
    d.get(33..35)
        .map(|l| usize::from(u16::from_be_bytes([l[0], l[1]])))
        .is_some_and(|l| d.len() == 35 + l)
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    if d.first().is_some_and(|&b| (0x80..=0x8d).contains(&b)) {
        return if is_frame_set(d) {
            Probe::Certain(&LABEL)
        } else {
            Probe::NotForUs
        };
    }
    if matches!(d.first(), Some(0xc0 | 0xa0)) {
        return Probe::certain_if(is_ack(d), &LABEL);
    }
    if d.first() == Some(&0x1c) && is_pong(d) {
        return Probe::Certain(&LABEL);
    }
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
