//! BGP-4 (RFC 4271): messages start with a 16-byte marker of all ones, a length of 19 to 4096
//! and a type (open, update, notification, keepalive, route refresh).

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP};

/// nDPI's BGP label.
pub static LABEL: Label = label("BGP", "Network");

/// The BGP inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "bgp",
    transports: TCP,
    ports: &[179],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let (Some(marker), Some(l), Some(&ty)) = (d.get(..16), d.get(16..18), d.get(18)) else {
        return Probe::NotForUs;
    };
    let len = usize::from(u16::from_be_bytes([l[0], l[1]]));
    if marker.iter().all(|&b| b == 0xff) && (19..=4096).contains(&len) && (1..=5).contains(&ty)
    {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
