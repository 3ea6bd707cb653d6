//! The Internet Printing Protocol (nDPI's IPP) over HTTP, TCP 631: every IPP operation is an
//! HTTP POST whose body is the binary IPP message, with the header
//! `Content-Type: application/ipp` (RFC 8010 §4 "Encoding of Transport Layer", and RFC 8011).
//!
//! Checked: a `POST` request line ending in ` HTTP/1.0` or ` HTTP/1.1`, and among the header
//! lines before the blank line a `Content-Type` whose media type is `application/ipp` (any
//! case, parameters allowed). A request whose headers continue in the next segment is read
//! reassembled.
//!
//! nDPI treats IPP as a sub-protocol of HTTP: the label's master is HTTP, its application IPP.
//! The HTTP inspector comes first in the registry and claims any request on other ports, so IPP
//! is named where this inspector is tried first: on its port hint, 631. The HTTP inspector's
//! sub-protocol names (proxy, CONNECT) live in its per-flow state, which is not to be touched
//! now; naming IPP there on every port is left for after the state redesign.

use crate::{Cx, Dir, Inspector, Label, Probe, TCP};

/// nDPI's IPP label: an HTTP sub-protocol (nDPI's `ipp.c` names it with master HTTP, so
/// `ndpiReader` prints `HTTP.IPP`), category System.
pub static LABEL: Label = Label {
    app: "IPP",
    master: "HTTP",
    category: "System",
};

/// The IPP inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "ipp",
    transports: TCP,
    ports: &[631],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

/// Header lines read at most.
const MAX_LINES: usize = 64;

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    if cx.hints.dir != Dir::ToServer || !d.starts_with(b"POST ") {
        return Probe::NotForUs;
    }
    // The header block: up to the blank line, or the whole lines received so far.
    let (head, complete) = match d.windows(4).position(|w| w == b"\r\n\r\n") {
        Some(p) => (&d[..p], true),
        None => (&d[..d.iter().rposition(|&c| c == b'\n').unwrap_or(0)], false),
    };
    let mut lines = head.split(|&c| c == b'\n');
    let first = lines.next().unwrap_or(&[]);
    let first = first.strip_suffix(b"\r").unwrap_or(first);
    let version = first.ends_with(b" HTTP/1.1") || first.ends_with(b" HTTP/1.0");
    if !head.is_empty() && !version {
        return Probe::NotForUs;
    }
    for line in lines.take(MAX_LINES) {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let Some(colon) = line.iter().position(|&c| c == b':') else {
            continue;
        };
        if !line[..colon].eq_ignore_ascii_case(b"content-type") {
            continue;
        }
        let value = line.get(colon + 1..).unwrap_or(&[]).trim_ascii();
        let media = value.split(|&c| c == b';').next().unwrap_or(&[]).trim_ascii();
        return if media.eq_ignore_ascii_case(b"application/ipp") {
            Probe::Certain(&LABEL)
        } else {
            Probe::NotForUs
        };
    }
    if complete || d.len() > 4096 {
        return Probe::NotForUs;
    }
    // The headers continue in the next segment.
    cx.incomplete();
    Probe::Unsure
}

#[cfg(test)]
mod tests;
