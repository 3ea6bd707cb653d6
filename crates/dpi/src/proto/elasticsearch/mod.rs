//! Elasticsearch's node-to-node transport protocol: `ES`, then a 32-bit length of the rest of
//! the message (a length of -1 is a ping).

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP};

/// nDPI's Elasticsearch label.
pub static LABEL: Label = label("Elasticsearch", "System");

/// The Elasticsearch inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "elasticsearch",
    transports: TCP,
    ports: &[9300],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let (Some(b"ES"), Some(l)) = (d.get(..2), d.get(2..6)) else {
        return Probe::NotForUs;
    };
    let len = u32::from_be_bytes([l[0], l[1], l[2], l[3]]);
    let ping = len == u32::MAX && d.len() == 6;
    if ping || (len >= 19 && len as usize + 6 == d.len()) {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
