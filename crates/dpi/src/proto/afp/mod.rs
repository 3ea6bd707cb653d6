//! The Apple Filing Protocol over TCP (nDPI's AFP), port 548: AFP commands travel in the Data
//! Stream Interface (DSI). Every DSI message has a 16-byte header: flags (0 request, 1 reply),
//! a command (1 CloseSession, 2 Command, 3 GetStatus, 4 OpenSession, 5 Tickle, 6 Write,
//! 8 Attention), a 16-bit request ID, a 32-bit error code (replies) or data offset (requests;
//! zero except for DSIWrite), the 32-bit length of the data after the header, and four
//! reserved bytes of zero (Apple, "AFP over TCP" in the AFP Programming Guide, "Data Stream
//! Interface"; the DSI packet header). A client opens with DSIGetStatus (no data) or
//! DSIOpenSession (options: type, length, value; type 0 server request quantum, 1 attention
//! quantum, 2 replay cache size).
//!
//! Checked on a session's opening messages only (GetStatus and OpenSession, request or
//! reply): the flags, the command, an offset of zero in requests, the reserved zeros, and a data
//! length equal to the rest of the segment (a GetStatus reply, which carries the server's
//! information block, may continue in later segments, up to 64 KiB); an OpenSession's options
//! must fill its data exactly.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP};

/// nDPI's AFP label.
pub static LABEL: Label = label("AFP", "DataTransfer");

/// The AFP (DSI) inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "afp",
    transports: TCP,
    ports: &[548],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

const GET_STATUS: u8 = 3;
const OPEN_SESSION: u8 = 4;

/// Largest GetStatus reply accepted when it continues past this segment.
const MAX_STATUS: usize = 64 * 1024;

fn be32(b: &[u8]) -> Option<usize> {
    let b: [u8; 4] = b.try_into().ok()?;
    Some(u32::from_be_bytes(b) as usize)
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let (Some(&flags), Some(&cmd), Some(code), Some(len), Some(reserved)) =
        (d.first(), d.get(1), d.get(4..8), d.get(8..12).and_then(be32), d.get(12..16))
    else {
        return Probe::NotForUs;
    };
    if flags > 1 || !(cmd == GET_STATUS || cmd == OPEN_SESSION) || reserved != [0; 4] {
        return Probe::NotForUs;
    }
    let data = d.get(16..).unwrap_or(&[]);
    let request = flags == 0;
    if request && code != [0; 4] {
        return Probe::NotForUs;
    }
    let ok = match (request, cmd) {
        (true, GET_STATUS) => len == 0 && data.is_empty(),
        (false, GET_STATUS) => len >= data.len() && len <= MAX_STATUS && len > 0,
        // OpenSession: options, request or reply.
        _ => len == data.len() && options(data),
    };
    if ok {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

/// DSIOpenSession options filling `d` exactly: type 0 to 2, a length, that many bytes.
fn options(mut d: &[u8]) -> bool {
    for _ in 0..8 {
        match d {
            [] => return true,
            [ty, n, rest @ ..] if *ty <= 2 && usize::from(*n) <= rest.len() && *n > 0 => {
                d = &rest[usize::from(*n)..];
            }
            _ => return false,
        }
    }
    false
}

#[cfg(test)]
mod tests;
