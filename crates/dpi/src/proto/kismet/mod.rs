//! The Kismet client/server protocol of Kismet releases up to 2016 (TCP port 2501): text lines;
//! on connecting, the server sends `*KISMET: <version> <start time> \001<server name>\001
//! <build> ...` and `*PROTOCOLS: ...` lines, and clients send `!<id> <COMMAND> ...` lines
//! (Kismet documentation, "Kismet client protocol"; Wireshark's Kismet dissector parses the
//! same).
//!
//! Checked: the server's greeting `*KISMET: ` followed, within its first 256 bytes, by the end
//! of the line. Client commands are too generic to name the flow by themselves.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP};

/// nDPI's Kismet label.
pub static LABEL: Label = label("Kismet", "Network");

/// The Kismet inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "kismet",
    transports: TCP,
    ports: &[2501],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let line = d.get(..d.len().min(256)).unwrap_or(&[]);
    if d.starts_with(b"*KISMET: ") && line.contains(&b'\n') {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
