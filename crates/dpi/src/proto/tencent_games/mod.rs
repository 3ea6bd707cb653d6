//! Tencent game servers (nDPI's TencentGames): TCP messages over 50 bytes that open with one of
//! Tencent's gcloud headers: `33 66 00 0b 00 0b`; `43 66 aa 00` with `10 e6 86 01` at offset
//! 12; `aa 00 00 00` with `10 e6 86 01` at offset 10; or a big-endian u32 length equal to the
//! rest of the segment followed by a zlib stream header `78 01`: nDPI's rule
//! (src/lib/protocols/tencent_games.c), on any port.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP};

/// nDPI's TencentGames label.
pub static LABEL: Label = label("TencentGames", "Game");

/// The Tencent games inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "tencent_games",
    transports: TCP,
    ports: &[],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

/// Shortest message the headers are looked for in.
const MIN_LEN: usize = 51;
const TAG: [u8; 4] = [0x10, 0xe6, 0x86, 0x01];

fn is_tencent(d: &[u8]) -> bool {
    if d.len() < MIN_LEN {
        return false;
    }
    let at = |i: usize, n: usize| d.get(i..i + n).unwrap_or(&[]);
    let len_ok = d
        .get(..4)
        .is_some_and(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]) as usize == d.len() - 4);
    at(0, 6) == [0x33, 0x66, 0x00, 0x0b, 0x00, 0x0b]
        || (at(0, 4) == [0x43, 0x66, 0xaa, 0x00] && at(12, 4) == TAG)
        || (at(0, 4) == [0xaa, 0x00, 0x00, 0x00] && at(10, 4) == TAG)
        || (len_ok && at(4, 2) == [0x78, 0x01])
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    Probe::certain_if(is_tencent(cx.data), &LABEL)
}

#[cfg(test)]
mod tests;
