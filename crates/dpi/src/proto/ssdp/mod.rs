//! SSDP (UPnP discovery): HTTP-like requests over UDP, `M-SEARCH *` and `NOTIFY *`, and their
//! `HTTP/1.1` answers on port 1900.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, UDP};

/// nDPI's SSDP label.
pub static LABEL: Label = label("SSDP", "System");

/// The SSDP inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "ssdp",
    transports: UDP,
    ports: &[1900],
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    if d.starts_with(b"M-SEARCH * HTTP/1.") || d.starts_with(b"NOTIFY * HTTP/1.") {
        return Probe::Certain(&LABEL);
    }
    if cx.hints.port(1900) && crate::proto::http::status(d).is_some() {
        return Probe::Certain(&LABEL);
    }
    Probe::NotForUs
}

#[cfg(test)]
mod tests;
