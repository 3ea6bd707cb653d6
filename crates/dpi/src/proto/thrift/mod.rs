//! Apache Thrift RPC messages (thrift/doc/specs/thrift-binary-protocol.md and
//! thrift-compact-protocol.md). Over TCP, the strict binary protocol: `80 01 00 type` (call,
//! reply, exception, oneway: 1-4), a 4-byte method name length and the name, then a sequence id;
//! optionally after the framed transport's 4-byte frame length. Over UDP (Jaeger agents on
//! 6831), the compact protocol: `82`, type (1-4) in the top three bits and version 1 below,
//! a varint sequence id, a varint name length and the name. The name must be visible ASCII starting with a letter.

use crate::proto::label;
use crate::util::Rd;
use crate::{Cx, Inspector, Label, Probe, TCP, UDP};

/// nDPI's Thrift label.
pub static LABEL: Label = label("Thrift", "RPC");

/// The Thrift inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "thrift",
    transports: TCP | UDP,
    ports: &[9090, 6831, 6832],
    labels: &[&LABEL],
    min_udp: 4,
    ports_required: false,
    probe,
};

/// Longest method name accepted.
const MAX_NAME: usize = 128;

/// A method name: at least 3 visible ASCII characters, the first a letter or `_`.
fn name_ok(n: &[u8]) -> bool {
    n.len() >= 3
        && n.first().is_some_and(|b| b.is_ascii_alphabetic() || *b == b'_')
        && n.iter().all(u8::is_ascii_graphic)
}

/// Strict binary message header at the start of `d`: version word, name, sequence id.
fn binary(d: &[u8]) -> bool {
    let mut r = Rd::new(d);
    let (Some(&[0x80, 0x01, 0x00, t]), Some(n)) = (r.take(4), r.u32()) else {
        return false;
    };
    let n = n as usize;
    (1..=4).contains(&t)
        && n <= MAX_NAME
        && r.take(n).is_some_and(name_ok)
        && r.skip(4).is_some()
}

/// An unsigned LEB128 varint of at most 5 bytes.
fn varint(r: &mut Rd<'_>) -> Option<u32> {
    let mut v = 0u32;
    for i in 0..5 {
        let b = r.u8()?;
        v |= u32::from(b & 0x7f) << (7 * i);
        if b & 0x80 == 0 {
            return Some(v);
        }
    }
    None
}

/// Compact protocol message header.
fn compact(d: &[u8]) -> bool {
    let mut r = Rd::new(d);
    let (Some(0x82), Some(tv)) = (r.u8(), r.u8()) else {
        return false;
    };
    if tv & 0x1f != 1 || !(1..=4).contains(&(tv >> 5)) || varint(&mut r).is_none() {
        return false;
    }
    let Some(n) = varint(&mut r) else {
        return false;
    };
    (n as usize) <= MAX_NAME && r.take(n as usize).is_some_and(name_ok)
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let ok = if cx.hints.transport == TCP {
        // Unframed, or framed: the frame length covers at least what follows in this segment.
        binary(d)
            || d.get(..4).is_some_and(|f| {
                let n = u32::from_be_bytes([f[0], f[1], f[2], f[3]]) as usize;
                let rest = d.get(4..).unwrap_or_default();
                n >= rest.len() && n <= 1 << 24 && binary(rest)
            })
    } else {
        compact(d)
    };
    if ok {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
