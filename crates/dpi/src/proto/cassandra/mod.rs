//! Cassandra's CQL native protocol (native_protocol_v4.spec section 2): a frame header of
//! version (1-5, top bit set in responses), flags (five defined bits), stream id (one byte in
//! versions 1-2, two after), opcode and a 4-byte body length. The direction bit must match the
//! sender and the opcode must be one that side sends. On the CQL port 9042 any such frame whose
//! length fits is enough; elsewhere the flow must open with the connection's first request,
//! OPTIONS (empty body) or STARTUP (a string map holding `CQL_VERSION`), ending the segment.

use crate::proto::label;
use crate::util::Rd;
use crate::{Cx, Dir, Inspector, Label, Probe, TCP};

/// nDPI's Cassandra label.
pub static LABEL: Label = label("Cassandra", "Database");

/// The Cassandra inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "cassandra",
    transports: TCP,
    ports: &[9042],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

/// Largest body the spec allows (256 MB).
const MAX_BODY: u32 = 256 << 20;

/// Does a STARTUP body (a `[string map]`) hold the key CQL_VERSION and end with the segment?
fn startup(body: &[u8]) -> bool {
    let mut r = Rd::new(body);
    let Some(n) = r.u16() else {
        return false;
    };
    let mut cql = false;
    for _ in 0..n.min(16) {
        let (Some(k), Some(_v)) = (r.vec16(), r.vec16()) else {
            return false;
        };
        cql |= k == b"CQL_VERSION";
    }
    cql && n <= 16 && r.left() == 0
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let mut r = Rd::new(d);
    let (Some(version), Some(flags)) = (r.u8(), r.u8()) else {
        return Probe::NotForUs;
    };
    let response = version & 0x80 != 0;
    let v = version & 0x7f;
    let stream = if v <= 2 { r.skip(1) } else { r.skip(2) };
    let (Some(()), Some(op), Some(len)) = (stream, r.u8(), r.u32()) else {
        return Probe::NotForUs;
    };
    let from_client = cx.hints.dir == Dir::ToServer;
    let op_ok = if response {
        matches!(op, 0x00 | 0x02 | 0x03 | 0x06 | 0x08 | 0x0c | 0x0e | 0x10)
    } else {
        matches!(op, 0x01 | 0x05 | 0x07 | 0x09 | 0x0a | 0x0b | 0x0d | 0x0f)
    };
    let body = r.rest();
    if !(1..=5).contains(&v)
        || flags & !0x1f != 0
        || response == from_client
        || !op_ok
        || len > MAX_BODY
        || (len as usize) < body.len()
    {
        return Probe::NotForUs;
    }
    let whole = len as usize == body.len();
    let ok = if cx.hints.port(9042) {
        true
    } else {
        whole && ((op == 0x05 && len == 0) || (op == 0x01 && startup(body)))
    };
    if ok {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
