//! AJP13 (Apache JServ Protocol): packets to the container start `12 34`, packets from it
//! `AB`, then a 16-bit length of the rest and a known prefix code.

use crate::proto::label;
use crate::{Cx, Dir, Inspector, Label, Probe, TCP};

/// nDPI's AJP label.
pub static LABEL: Label = label("AJP", "Web");

/// The AJP inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "ajp",
    transports: TCP,
    ports: &[8009],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let (Some(magic), Some(l), Some(&code)) = (d.get(..2), d.get(2..4), d.get(4)) else {
        return Probe::NotForUs;
    };
    let len = usize::from(u16::from_be_bytes([l[0], l[1]]));
    let ok = match (cx.hints.dir, magic) {
        // Forward request, shutdown, ping, CPing.
        (Dir::ToServer, &[0x12, 0x34]) => matches!(code, 2 | 7 | 8 | 10),
        // Body chunk, headers, end, get body, CPong.
        (Dir::ToClient, b"AB") => matches!(code, 3 | 4 | 5 | 6 | 9),
        _ => false,
    };
    if ok && len > 0 && len <= 8188 && 4 + len <= d.len() + 8192 && (4 + len == d.len() || d.len() >= 512) {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
