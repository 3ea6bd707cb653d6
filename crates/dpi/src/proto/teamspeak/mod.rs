//! TeamSpeak 3 voice (UDP): the client's handshake starts with a MAC-less `TS3INIT1` header.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, UDP};

/// nDPI's TeamSpeak label.
pub static LABEL: Label = label("TeamSpeak", "VoIP");

/// The TeamSpeak inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "teamspeak",
    transports: UDP,
    ports: &[9987],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    if d.starts_with(b"TS3INIT1") && d.len() >= 16 {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
