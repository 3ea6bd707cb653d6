//! NATS: the server greets with `INFO {json}` (carrying `"server_id"`) and the client answers
//! `CONNECT {json}`.

use crate::proto::label;
use crate::{Cx, Dir, Inspector, Label, Probe, TCP};

/// nDPI's Nats label.
pub static LABEL: Label = label("Nats", "RPC");

/// The NATS inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "nats",
    transports: TCP,
    ports: &[4222],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let head = d.get(..d.len().min(256)).unwrap_or(&[]);
    let ok = match cx.hints.dir {
        Dir::ToClient => {
            d.starts_with(b"INFO {") && crate::util::contains(head, b"\"server_id\"")
        }
        Dir::ToServer => d.starts_with(b"CONNECT {\"") && d.ends_with(b"\r\n"),
    };
    if ok {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
