//! RTMP: the handshake opens with C0 (version 3) and the 1536-byte C1 from the client, and the
//! server answers with S0 (3) and S1/S2. A whole C0+C1 (reassembled when TCP cut it) decides,
//! as does the server's answer starting with 3 in a full-size segment after the client's
//! opening.

use crate::proto::label;
use crate::{Cx, Dir, Inspector, Label, Probe, TCP};

/// nDPI's RTMP label.
pub static LABEL: Label = label("RTMP", "Media");

/// The RTMP inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "rtmp",
    transports: TCP,
    ports: &[1935],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

const HANDSHAKE: usize = 1537;

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    if d.first() != Some(&3) {
        return Probe::NotForUs;
    }
    match (cx.hints.dir, cx.hints.nth) {
        (Dir::ToServer, 0) if d.len() == HANDSHAKE => Probe::Certain(&LABEL),
        // The opening reassembled with the segments that followed it.
        (Dir::ToServer, _) if d.len() >= HANDSHAKE => Probe::Certain(&LABEL),
        (Dir::ToServer, 0) if d.len() >= 9 && d.len() < HANDSHAKE => {
            // C1 continues in the next segment: see the handshake whole.
            cx.incomplete();
            Probe::Unsure
        }
        (Dir::ToClient, 0) if d.len() >= 1200 => Probe::Certain(&LABEL),
        _ => Probe::NotForUs,
    }
}

#[cfg(test)]
mod tests;
