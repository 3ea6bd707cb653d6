//! Ookla Speedtest's own TCP protocol (port 8080): line-based text commands. The client opens
//! with `HI` (alone, or with a session id) and the server answers `HELLO <version> ...`; then
//! `PING`, `DOWNLOAD`, `UPLOAD`, `INITPLOSS`. Only the greeting is a strong enough test, and only
//! on the server port 8080, which nDPI also requires.

use crate::proto::label;
use crate::{Cx, Dir, Inspector, Label, Probe, TCP};

/// nDPI's Ookla label.
pub static LABEL: Label = label("Ookla", "Network");

/// The Ookla Speedtest inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "ookla",
    transports: TCP,
    ports: &[8080],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: true,
    probe,
};

/// The client's `HI`: the whole line is `HI` or `HI ` and a token of printable characters.
fn is_hi(d: &[u8]) -> bool {
    let Some(line) = d.strip_suffix(b"\n") else {
        return false;
    };
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    match line.strip_prefix(b"HI") {
        Some([]) => true,
        Some([b' ', token @ ..]) => {
            !token.is_empty() && token.len() <= 64 && token.iter().all(|b| b.is_ascii_graphic())
        }
        _ => false,
    }
}

/// The server's `HELLO <version>`: a version that starts with a digit.
fn is_hello(d: &[u8]) -> bool {
    d.strip_prefix(b"HELLO ")
        .and_then(|r| r.first())
        .is_some_and(|b| b.is_ascii_digit())
        && d.ends_with(b"\n")
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    if cx.hints.server_port != 8080 || cx.hints.nth > 0 {
        return Probe::NotForUs;
    }
    let ok = match cx.hints.dir {
        Dir::ToServer => is_hi(cx.data),
        Dir::ToClient => is_hello(cx.data),
    };
    Probe::certain_if(ok, &LABEL)
}

#[cfg(test)]
mod tests;
