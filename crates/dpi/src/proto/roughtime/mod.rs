//! Roughtime: a message is a little-endian tag count, count-1 offsets (multiples of 4,
//! increasing, inside the message), and count tags in increasing order from Roughtime's
//! vocabulary (`NONC`, `PAD\xff`, `SIG\0`, `SREP`, `CERT`, `INDX`, `PATH`, `VER\0`...).

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, UDP, TCP};

/// nDPI's Roughtime label.
pub static LABEL: Label = label("Roughtime", "System");

/// The Roughtime inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "roughtime",
    transports: UDP | TCP,
    ports: &[2002],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

const TAGS: &[&[u8; 4]] = &[
    b"NONC", b"PAD\xff", b"SIG\x00", b"SREP", b"CERT", b"INDX", b"PATH", b"VER\x00", b"ROOT",
    b"MIDP", b"RADI", b"DELE", b"PUBK", b"MINT", b"MAXT", b"ZZZZ", b"PAD\x00", b"SRV\x00",
    b"VERS", b"NONC",
];

fn le32(d: &[u8], at: usize) -> Option<u32> {
    d.get(at..at + 4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

fn is_roughtime(d: &[u8]) -> bool {
    let Some(n) = le32(d, 0) else {
        return false;
    };
    if !(1..=32).contains(&n) {
        return false;
    }
    let n = n as usize;
    let tags_at = 4 + 4 * (n - 1);
    let header = tags_at + 4 * n;
    if header > d.len() {
        return false;
    }
    let mut prev_off = 0;
    for i in 0..n - 1 {
        let Some(off) = le32(d, 4 + 4 * i) else {
            return false;
        };
        if off % 4 != 0 || off < prev_off || header + off as usize > d.len() {
            return false;
        }
        prev_off = off;
    }
    let mut prev_tag = 0u32;
    for i in 0..n {
        let Some(t) = d.get(tags_at + 4 * i..tags_at + 4 * i + 4) else {
            return false;
        };
        let v = u32::from_le_bytes([t[0], t[1], t[2], t[3]]);
        if !TAGS.iter().any(|k| k.as_slice() == t) || (i > 0 && v <= prev_tag) {
            return false;
        }
        prev_tag = v;
    }
    true
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    // Over TCP and in the IETF drafts a message may start with "ROUGHTIM" and a length.
    let m = match d.strip_prefix(b"ROUGHTIM") {
        Some(r) => r.get(4..).unwrap_or(&[]),
        None => d,
    };
    Probe::certain_if(is_roughtime(m), &LABEL)
}

#[cfg(test)]
mod tests;
