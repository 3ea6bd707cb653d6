//! FastCGI: the web server opens with a BEGIN_REQUEST record (version 1, type 1, a request id,
//! 8 bytes of content: a role of 1-3 and flags).

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP};

/// nDPI's FastCGI label.
pub static LABEL: Label = label("FastCGI", "Network");

/// The FastCGI inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "fastcgi",
    transports: TCP,
    ports: &[9000],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let ok = d.get(..2) == Some(&[1, 1])
        && d.get(4..8).is_some_and(|h| h[0] == 0 && h[1] == 8 && h[3] == 0)
        && matches!(d.get(8..10), Some(&[0, 1..=3]))
        && d.get(11..16).is_some_and(|z| z.iter().all(|&b| b == 0));
    if ok {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
