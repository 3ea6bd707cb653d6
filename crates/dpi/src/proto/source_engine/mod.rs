//! Valve's Source Engine server queries (A2S): a `ffffffff` header, then the info query
//! `TSource Engine Query\0`, or the info answer `I` with a protocol byte and a
//! NUL-terminated server name.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, UDP};

/// nDPI's Source_Engine label.
pub static LABEL: Label = label("Source_Engine", "Game");

/// The Source Engine inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "source_engine",
    transports: UDP,
    ports: &[27015],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let Some(m) = cx.data.strip_prefix(&[0xff, 0xff, 0xff, 0xff]) else {
        return Probe::NotForUs;
    };
    let query = m.starts_with(b"TSource Engine Query\0");
    let info = m.first() == Some(&b'I')
        && m.get(2..).is_some_and(|n| {
            let end = n.iter().take(256).position(|&b| b == 0);
            end.is_some_and(|e| n.iter().take(e).all(|b| !b.is_ascii_control()))
        });
    if query || info {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
