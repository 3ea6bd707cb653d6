//! Telegram calls over UDP: the reflector protocol starts each datagram with a 16-byte peer tag
//! followed by twelve `0xff` bytes (special requests and answers), as nDPI tests, and then a
//! byte that is not `0xff` (an RTP packet of G.711 silence is all `0xff` after its header).

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, UDP};

/// nDPI's Telegram label.
pub static LABEL: Label = label("Telegram", "Chat");

/// The Telegram inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "telegram",
    transports: UDP,
    ports: &[],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
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

#[cfg(test)]
mod tests;
