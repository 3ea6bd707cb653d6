//! Dropbox LAN sync: the discovery broadcast on UDP 17500 is a JSON object carrying both
//! `"host_int"` and `"version"` (in either order); the LAN-sync bus messages on 17500 name
//! `Bus17Cmd` near their start.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, UDP};

/// nDPI's Dropbox label.
pub static LABEL: Label = label("Dropbox", "Cloud");

/// The Dropbox LAN-sync inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "dropbox",
    transports: UDP,
    ports: &[17500],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

use crate::util::contains as find;

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let head = d.get(..d.len().min(256)).unwrap_or(&[]);
    let discovery =
        d.starts_with(b"{\"") && find(head, b"\"host_int\"") && find(head, b"\"version\"");
    let bus = cx.hints.port(17500) && find(d.get(..d.len().min(32)).unwrap_or(&[]), b"Bus17Cmd");
    if discovery || bus {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
