//! Guild Wars 2 (nDPI's GuildWars2): the client connection on tcp/6112 opens with a clear-text
//! preamble in ArenaNet's HTTP-like STS protocol (`P /Sts/Connect STS/1.0`, or
//! `P /Auth/StartTls STS/1.0`, answered by `STS/1.0 400 Success`) before TLS starts.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP};

/// nDPI's GuildWars2 label.
pub static LABEL: Label = label("GuildWars2", "Game");

/// The Guild Wars 2 inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "guildwars2",
    transports: TCP,
    ports: &[6112],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

const OPENINGS: [&[u8]; 3] = [
    b"P /Sts/Connect STS/1.0",
    b"P /Auth/StartTls STS/1.0",
    b"STS/1.0 400 Success",
];

/// The preamble carries headers and client info after its first line.
const MIN_LEN: usize = 51;

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    if d.len() >= MIN_LEN && OPENINGS.iter().any(|o| d.starts_with(o)) {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
