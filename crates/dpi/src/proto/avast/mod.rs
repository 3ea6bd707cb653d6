//! Avast antivirus cloud protocol (nDPI's AVAST): a binary TCP protocol. A message starts with
//! the ASCII magic `NOSA` and a big-endian u16 length equal to the whole message, which here
//! fills the segment: nDPI's rule (src/lib/protocols/avast.c), on any port, as there.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP};

/// nDPI's AVAST label.
pub static LABEL: Label = label("AVAST", "Network");

/// The Avast inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "avast",
    transports: TCP,
    ports: &[],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    match (d.get(..4), d.get(4..6)) {
        (Some(b"NOSA"), Some(&[a, b])) if usize::from(u16::from_be_bytes([a, b])) == d.len() => {
            Probe::Certain(&LABEL)
        }
        _ => Probe::NotForUs,
    }
}

#[cfg(test)]
mod tests;
