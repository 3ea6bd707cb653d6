//! Genshin Impact's UDP transport (KCP with a 20-byte handshake): connect (`000000ff`),
//! established (`00000145`) or disconnect (`00000194`), conversation ids, the constant
//! 1234567890 (`499602d2`) and a closing word. Over TCP (ports 80 and others in the captures),
//! messages open with `01 00 00 00`, their one-byte length (the whole segment), a type byte,
//! two zero bytes and a session id.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP, UDP};

/// nDPI's GenshinImpact label.
pub static LABEL: Label = label("GenshinImpact", "Game");

/// The Genshin Impact inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "genshin",
    transports: UDP | TCP,
    ports: &[22101, 22102],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    if cx.hints.transport == TCP {
        let ok = cx.hints.nth == 0
            && d.len() >= 20
            && d.starts_with(&[1, 0, 0, 0])
            && d.get(4).is_some_and(|&l| usize::from(l) == d.len())
            && d.get(6..8) == Some(&[0, 0]);
        return if ok {
            Probe::Certain(&LABEL)
        } else {
            Probe::NotForUs
        };
    }
    let kind = d.get(..4);
    let ok = d.len() == 20
        && matches!(kind, Some(&[0, 0, 0, 0xff] | &[0, 0, 1, 0x45] | &[0, 0, 1, 0x94]))
        && d.get(12..16) == Some(&[0x49, 0x96, 0x02, 0xd2]);
    if ok {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
