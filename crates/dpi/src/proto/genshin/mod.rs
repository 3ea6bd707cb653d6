//! Genshin Impact's UDP transport (KCP with a 20-byte handshake): connect (`000000ff`),
//! established (`00000145`) or disconnect (`00000194`), conversation ids, the constant
//! 1234567890 (`499602d2`) and a closing word.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, UDP};

/// nDPI's GenshinImpact label.
pub static LABEL: Label = label("GenshinImpact", "Game");

/// The Genshin Impact inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "genshin",
    transports: UDP,
    ports: &[22101, 22102],
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
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
