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
    labels: &[&LABEL],
    min_udp: 12,
    ports_required: false,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    if d.starts_with(b"M-SEARCH * HTTP/1.") || d.starts_with(b"NOTIFY * HTTP/1.") {
        // Host and User-Agent, as for HTTP (tshark shows SSDP's Host as http.host).
        crate::proto::http::lenient_headers(cx);
        return Probe::Certain(&LABEL);
    }
    if crate::proto::http::status(d).is_some() {
        // An answer to M-SEARCH goes to the searcher's port: on port 1900, or with the
        // headers only SSDP answers carry.
        let head = d.get(..d.len().min(1024)).unwrap_or(&[]);
        if cx.hints.port(1900) || find_ci(head, b"\nusn:") || find_ci(head, b"\nst:") {
            return Probe::Certain(&LABEL);
        }
    }
    Probe::NotForUs
}

/// Case-insensitive search of `pat` (lower case) in `h`.
fn find_ci(h: &[u8], pat: &[u8]) -> bool {
    h.windows(pat.len()).any(|w| w.eq_ignore_ascii_case(pat))
}

#[cfg(test)]
mod tests;
