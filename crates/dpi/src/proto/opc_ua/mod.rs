//! OPC UA binary over TCP (OPC 10000-6 section 7.1, "UA TCP"), usually port 4840: every chunk
//! opens with a 3-letter message type (HEL, ACK, ERR, RHE, or OPN, MSG, CLO on a secure
//! channel), a chunk type ('F' final; 'C' and 'A' only on secure channel messages) and a
//! little-endian 32-bit size counting the whole chunk. A connection opens with Hello (HEL, with
//! the endpoint URL, "opc.tcp://...") and its
//! Acknowledge (ACK), whose receive and send buffer sizes must be at least 8192 bytes
//! (section 7.1.2.3). The chunk must end with the segment, be followed by another chunk
//! header, or run past the segment.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP};

/// nDPI's OPC-UA label.
pub static LABEL: Label = label("OPC-UA", "IoT-Scada");

/// The OPC UA inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "opc_ua",
    transports: TCP,
    ports: &[4840],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

/// Smallest chunk: a header and 8 bytes (an Error with an empty reason, or a Reverse Hello
/// with two empty strings).
const MIN_CHUNK: u32 = 16;
/// Largest chunk believed: OPC UA stacks negotiate buffers of at most a few megabytes.
const MAX_CHUNK: u32 = 1 << 24;

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let Some(size) = header(d) else {
        return Probe::NotForUs;
    };
    let size = size as usize;
    let follows = match d.get(size..) {
        Some([]) | None => true,
        Some(rest) => header(rest).is_some(),
    };
    if follows && buffers_ok(d) {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

/// The chunk size of a valid chunk header at the start of `d`.
fn header(d: &[u8]) -> Option<u32> {
    let (Some(kind), Some(&chunk), Some(s)) = (d.get(..3), d.get(3), d.get(4..8)) else {
        return None;
    };
    let ok = match kind {
        b"HEL" | b"ACK" | b"ERR" | b"RHE" => chunk == b'F',
        b"OPN" | b"MSG" | b"CLO" => matches!(chunk, b'F' | b'C' | b'A'),
        _ => false,
    };
    let size = u32::from_le_bytes([s[0], s[1], s[2], s[3]]);
    (ok && (MIN_CHUNK..=MAX_CHUNK).contains(&size)).then_some(size)
}

/// Hello and Acknowledge: receive and send buffer sizes of at least 8192 where present.
fn buffers_ok(d: &[u8]) -> bool {
    if !matches!(d.get(..3), Some(b"HEL" | b"ACK")) {
        return true;
    }
    let le = |at: usize| {
        d.get(at..at + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    [le(12), le(16)].iter().all(|v| v.is_none_or(|v| v >= 8192))
}

#[cfg(test)]
mod tests;
