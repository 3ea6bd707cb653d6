//! STOMP 1.0-1.2 (stomp.github.io): text frames of a command line, header lines `key:value` and
//! a blank line. A session opens with the client's `CONNECT` or `STOMP` frame carrying
//! `accept-version:` (or, in 1.0, any header) and the server's `CONNECTED` with `version:` or a
//! `session:`; those openings, each whole up to its blank line, are the test.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP};

/// nDPI's STOMP label.
pub static LABEL: Label = label("STOMP", "RPC");

/// The STOMP inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "stomp",
    transports: TCP,
    ports: &[61613],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

/// The frame's header lines (after the command line, before the blank line), when `d` opens
/// with `command` and every header line is `key:value` (at most 32 lines).
fn headers<'a>(d: &'a [u8], command: &[u8]) -> Option<impl Iterator<Item = &'a [u8]> + 'a> {
    let rest = d.strip_prefix(command)?;
    let rest = rest.strip_prefix(b"\r\n").or_else(|| rest.strip_prefix(b"\n"))?;
    // The blank line: a line end followed by another (LF or CRLF), within the first 4 KiB.
    let end = rest.iter().take(4096).enumerate().position(|(i, &b)| {
        let next = rest.get(i + 1..).unwrap_or(&[]);
        b == b'\n' && (next.starts_with(b"\n") || next.starts_with(b"\r\n"))
    })?;
    let block = rest.get(..end)?;
    let lines = || block.split(|&b| b == b'\n').map(|l| l.strip_suffix(b"\r").unwrap_or(l));
    let ok = lines().count() <= 32
        && lines().all(|l| {
            let colon = l.iter().position(|&b| b == b':');
            colon.is_some_and(|c| c > 0) && l.iter().all(|b| (0x20..0x7f).contains(b))
        });
    ok.then(lines)
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let opens = |cmd: &[u8], keys: &[&[u8]]| {
        headers(d, cmd).is_some_and(|mut h| h.any(|l| keys.iter().any(|k| l.starts_with(k))))
    };
    let ok = opens(b"CONNECT", &[b"accept-version:", b"host:", b"login:"])
        || opens(b"STOMP", &[b"accept-version:"])
        || opens(b"CONNECTED", &[b"version:", b"session:"]);
    Probe::certain_if(ok, &LABEL)
}

#[cfg(test)]
mod tests;
