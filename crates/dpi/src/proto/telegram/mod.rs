//! Telegram calls over UDP: the reflector protocol starts each datagram with a 16-byte peer tag
//! followed by twelve `0xff` bytes (special requests and answers), as nDPI tests, and then a
//! byte that is not `0xff` (an RTP packet of G.711 silence is all `0xff` after its header).
//!
//! Over TCP, MTProto's abridged transport: the client's first segment to port 443, 80 or 25
//! opens with `0xef`, then a length byte in 4-byte words that fits the segment (or `0x7f`, an
//! extended length), more than 56 bytes in all (nDPI's rule).

use crate::proto::label;
use crate::{Cx, Dir, Inspector, Label, Probe, TCP, UDP};

/// nDPI's Telegram label.
pub static LABEL: Label = label("Telegram", "Chat");

/// The Telegram inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "telegram",
    transports: UDP | TCP,
    ports: &[],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    if cx.hints.transport == TCP {
        return abridged(cx);
    }
    let d = cx.data;
    let (Some(tag), Some(ff)) = (d.get(..16), d.get(16..28)) else {
        return Probe::NotForUs;
    };
    if d.len() >= 32
        && ff.iter().all(|&b| b == 0xff)
        && d.get(28) != Some(&0xff)
        && tag.iter().any(|&b| b != 0xff)
    {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

/// MTProto's abridged framing on the client's first segment.
fn abridged(cx: &Cx<'_>) -> Probe {
    let (h, d) = (&cx.hints, cx.data);
    let port = matches!(h.server_port, 443 | 80 | 25);
    let first = h.dir == Dir::ToServer && h.nth == 0;
    let fits = |w: u8| w == 0x7f || usize::from(w) * 4 < d.len();
    match (d.first(), d.get(1)) {
        (Some(&0xef), Some(&w)) if port && first && d.len() > 56 && fits(w) => {
            Probe::Certain(&LABEL)
        }
        _ => Probe::NotForUs,
    }
}

#[cfg(test)]
mod tests;
