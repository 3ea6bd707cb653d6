//! RIPE Atlas "Magellan" UDP probes (nDPI's RipeAtlas): a 25-byte datagram that opens with the
//! ASCII marker `MGLNDD`, on any port: nDPI's rule (src/lib/protocols/ripe_atlas.c).

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, UDP};

/// nDPI's RipeAtlas label.
pub static LABEL: Label = label("RipeAtlas", "Network");

/// The RIPE Atlas inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "ripe_atlas",
    transports: UDP,
    ports: &[],
    labels: &[&LABEL],
    min_udp: PROBE_LEN as u16,
    ports_required: false,
    probe,
};

/// Length of a probe datagram.
const PROBE_LEN: usize = 25;

fn probe(cx: &mut Cx<'_>) -> Probe {
    if cx.data.len() == PROBE_LEN && cx.data.starts_with(b"MGLNDD") {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
