//! MongoDB wire protocol: a 16-byte little-endian header (message length, request id, response
//! id, opcode) with a known opcode and a length that covers at least the segment. Requests go
//! to the server with a response id of 0; replies come back with a non-zero one
//! (mongo_false_positive.pcapng has TLS-port traffic that only looks like an OP_REPLY).

use crate::proto::label;
use crate::{Cx, Dir, Inspector, Label, Probe, TCP};

/// nDPI's MongoDB label.
pub static LABEL: Label = label("MongoDB", "Database");

/// The MongoDB inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "mongodb",
    transports: TCP,
    ports: &[27017],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn le32(d: &[u8], at: usize) -> Option<u32> {
    d.get(at..at + 4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let (Some(len), Some(resp), Some(op)) = (le32(d, 0), le32(d, 8), le32(d, 12)) else {
        return Probe::NotForUs;
    };
    let op_ok = match cx.hints.dir {
        // OP_UPDATE..OP_KILL_CURSORS, OP_COMPRESSED, OP_MSG.
        Dir::ToServer => resp == 0 && matches!(op, 2001..=2007 | 2012 | 2013),
        // OP_REPLY, OP_COMPRESSED, OP_MSG.
        Dir::ToClient => resp != 0 && matches!(op, 1 | 2012 | 2013),
    };
    let len = len as usize;
    if op_ok && (16..=48 * 1024 * 1024).contains(&len) && len >= d.len() && d.len() > 16 {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
