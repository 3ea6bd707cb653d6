//! i3D.net game-server hosting (nDPI's i3D): dedicated-server UDP traffic whose datagrams (74
//! bytes or more) open with one of two fixed headers: `00 01 00 46` or `00 02 00 46` then
//! `00 03 cf a8`; or an RTP header with the extension bit (`90 78` / `90 67`; sequence and
//! timestamp free) whose SSRC is `00 03 cf a9` and whose extension is the RFC 8285 one-byte
//! form (`be de`) of three words. Bytes and the 74-byte minimum are nDPI's rule
//! (src/lib/protocols/i3d.c); reading the second as RTP is ours.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, UDP};

/// nDPI's i3D label.
pub static LABEL: Label = label("i3D", "Game");

/// The i3D inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "i3d",
    transports: UDP,
    ports: &[],
    labels: &[&LABEL],
    min_udp: MIN_LEN as u16,
    ports_required: false,
    probe,
};

/// Shortest datagram with these headers.
const MIN_LEN: usize = 74;

fn is_i3d(d: &[u8]) -> bool {
    if d.len() < MIN_LEN {
        return false;
    }
    let (Some(a), Some(b), Some(c)) = (d.get(..4), d.get(4..8), d.get(8..16)) else {
        return false;
    };
    let first = (a == [0x00, 0x01, 0x00, 0x46] || a == [0x00, 0x02, 0x00, 0x46])
        && b == [0x00, 0x03, 0xcf, 0xa8];
    let second = (a[..2] == [0x90, 0x78] || a[..2] == [0x90, 0x67])
        && c == [0x00, 0x03, 0xcf, 0xa9, 0xbe, 0xde, 0x00, 0x03];
    first || second
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    if is_i3d(cx.data) {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
