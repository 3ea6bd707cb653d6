//! Half-Life 2 and its mods' connectionless packets over UDP: at least 20 bytes that start
//! with `ff ff ff ff` and end with `30 30 30 00` ("000" and a NUL). nDPI names the flow when the
//! client's first datagram and then the server's answer both have that shape; a second client
//! datagram before the answer rules it out, as in nDPI. (An undecided inspector keeps no state:
//! reaching the server's datagram means the client's matched.) The rule is nDPI's
//! (src/lib/protocols/halflife2_and_mods.c); 27015 is the Source engine's documented default
//! server port (Valve Developer Community, "Source Dedicated Server").

use crate::proto::label;
use crate::{Cx, Dir, Inspector, Label, Probe, UDP};

/// nDPI's HalfLife2 label.
pub static LABEL: Label = label("HalfLife2", "Game");

/// The Half-Life 2 inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "halflife2",
    transports: UDP,
    ports: &[27015],
    labels: &[&LABEL],
    min_udp: 20,
    ports_required: false,
    probe,
};

/// The shape both datagrams share.
fn shaped(d: &[u8]) -> bool {
    d.len() >= 20 && d.starts_with(&[0xff; 4]) && d.ends_with(b"000\0")
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    match (cx.hints.dir, cx.hints.nth) {
        (Dir::ToServer, 0) if shaped(cx.data) => Probe::Unsure,
        (Dir::ToClient, 0) if shaped(cx.data) => Probe::Certain(&LABEL),
        _ => Probe::NotForUs,
    }
}

#[cfg(test)]
mod tests;
