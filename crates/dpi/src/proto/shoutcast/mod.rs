//! SHOUTcast (nDPI's ShoutCast): the SHOUTcast v1 ("ICY") source protocol, which encoders use
//! to feed a SHOUTcast DNAS or an Icecast server's SHOUTcast-compatible port (the listen port
//! plus one).
//!
//! Reference: the ICY source protocol as libshout implements it (`SHOUT_PROTOCOL_ICY`) and
//! Icecast documents it ("shoutcast-mount": the port after a listen socket takes SHOUTcast
//! sources): the source sends its password on a line of its own, then `icy-*` header lines
//! (`icy-name:`, `icy-genre:`, `icy-pub:`, `icy-br:` ...) and an empty line; the server
//! answers `OK2` and `icy-caps:<n>` (or an error) before the audio flows.
//!
//! Checked: from the source, a first line of 1-128 printable bytes followed by at least two
//! `icy-<name>:` header lines, or by one with a value and the empty line that ends the request
//! (libshout's poke); from the server, `OK2\r\nicy-caps:` followed by digits and a line
//! end.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP};

/// nDPI's ShoutCast label.
pub static LABEL: Label = label("ShoutCast", "Music");

/// The SHOUTcast inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "shoutcast",
    transports: TCP,
    ports: &[8001],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

const MAX_PASSWORD: usize = 128;
const OK2: &[u8] = b"OK2\r\nicy-caps:";

/// The lines of `d` (LF or CRLF ends; the last, unterminated piece is left out), at most 16.
fn lines(d: &[u8]) -> impl Iterator<Item = &[u8]> {
    let whole = d.iter().rposition(|&b| b == b'\n').map_or(&[][..], |e| &d[..e]);
    whole
        .split(|&b| b == b'\n')
        .map(|l| l.strip_suffix(b"\r").unwrap_or(l))
        .take(16)
}

/// `icy-<lower-case name>:`
fn icy_header(l: &[u8]) -> bool {
    let Some(rest) = l.strip_prefix(b"icy-") else {
        return false;
    };
    let Some(colon) = rest.iter().position(|&b| b == b':') else {
        return false;
    };
    colon > 0
        && rest
            .get(..colon)
            .is_some_and(|n| n.iter().all(|b| b.is_ascii_lowercase() || *b == b'-'))
}

fn source(d: &[u8]) -> bool {
    let mut it = lines(d);
    let Some(password) = it.next() else {
        return false;
    };
    let printable = password.iter().all(|&b| b >= 0x20 && b != 0x7f);
    if password.is_empty() || password.len() > MAX_PASSWORD || !printable {
        return false;
    }
    let mut headers = it.take_while(|l| !l.is_empty()).filter(|l| icy_header(l));
    let first = headers.next();
    // One header is enough when it carries a value and the empty line that ends the request
    // came too: libshout's "server poke" (`!POKE`, `icy-name:...`, then the empty line), which
    // it sends before every ICY connection to learn the server's kind, is the same request
    // with one header.
    let enough = match (first, headers.next()) {
        (Some(_), Some(_)) => true,
        (Some(h), None) => {
            !h.ends_with(b":") && lines(d).skip(1).any(|l| l.is_empty())
        }
        _ => false,
    };
    enough && lines(d).skip(1).take_while(|l| !l.is_empty()).all(icy_header)
}

fn answer(d: &[u8]) -> bool {
    let Some(rest) = d.strip_prefix(OK2) else {
        return false;
    };
    let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
    digits > 0 && rest.get(digits..digits + 2) == Some(b"\r\n")
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    if source(d) || answer(d) {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
