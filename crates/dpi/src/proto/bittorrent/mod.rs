//! BitTorrent: the peer handshake (`\x13BitTorrent protocol`) over TCP or inside uTP (BEP 29)
//! data packets, Mainline DHT queries and answers (bencoded dictionaries, BEP 5) and local
//! service discovery (`BT-SEARCH * HTTP/1.1`, BEP 14).

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP, UDP};

/// nDPI's BitTorrent label.
pub static LABEL: Label = label("BitTorrent", "Download");

/// The BitTorrent inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "bittorrent",
    transports: TCP | UDP,
    ports: &[6881, 6771, 51413],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

const HANDSHAKE: &[u8] = b"\x13BitTorrent protocol";

/// The uTP header's size before extensions.
const UTP_HEADER: usize = 20;

/// Offset of a uTP packet's payload (after the extension chain), if `d` is a uTP v1 packet.
fn utp_payload(d: &[u8]) -> Option<usize> {
    let (&tv, &ext) = (d.first()?, d.get(1)?);
    if tv & 0x0f != 1 || tv >> 4 > 4 {
        return None;
    }
    let mut next = ext;
    let mut at = UTP_HEADER;
    // Extensions are (next, length, bytes); a handful at most.
    for _ in 0..4 {
        if next == 0 {
            return (at <= d.len()).then_some(at);
        }
        if next > 4 {
            return None;
        }
        next = *d.get(at)?;
        at += 2 + usize::from(*d.get(at + 1)?);
    }
    None
}

/// A bencoded DHT message (KRPC, BEP 5): a whole dictionary whose first key is one a KRPC
/// message can have first (keys are sorted: "a" a query's arguments, "e" an error, "ip" BEP
/// 42's address, "q", "r" a response, "t"), holding the key every message has, "y", with the
/// message's type: q, r or e. (The arguments' own first key varies: libtorrent's queries
/// open with its "bs" before "id".)
fn is_dht(d: &[u8]) -> bool {
    const STARTS: &[&[u8]] = &[b"d1:a", b"d1:e", b"d1:q", b"d1:r", b"d1:t", b"d2:ip"];
    STARTS.iter().any(|s| d.starts_with(s))
        && d.last() == Some(&b'e')
        && memchr::memmem::find_iter(d, b"1:y1:")
            .any(|i| matches!(d.get(i + 5), Some(b'q' | b'r' | b'e')))
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    if cx.hints.transport == TCP {
        if d.starts_with(HANDSHAKE) {
            return Probe::Certain(&LABEL);
        }
        return if !d.is_empty() && d.len() < HANDSHAKE.len() && HANDSHAKE.starts_with(d) {
            Probe::Unsure
        } else {
            Probe::NotForUs
        };
    }
    if is_dht(d) || d.starts_with(b"BT-SEARCH * HTTP/1.") {
        return Probe::Certain(&LABEL);
    }
    match utp_payload(d) {
        // A data packet carrying the peer handshake.
        Some(at) if d.get(at..).is_some_and(|p| p.starts_with(HANDSHAKE)) => {
            Probe::Certain(&LABEL)
        }
        // A SYN or state packet: the handshake comes with the first data packet.
        Some(_) if cx.hints.nth < 4 => Probe::Unsure,
        _ => Probe::NotForUs,
    }
}

#[cfg(test)]
mod tests;
