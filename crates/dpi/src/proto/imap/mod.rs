//! IMAP (RFC 9051): the server's untagged `* OK` or `* PREAUTH` greeting, or a client that
//! opens with a tag and `CAPABILITY`, `LOGIN`, `STARTTLS` or `AUTHENTICATE`. The flow is then
//! read for a `STARTTLS` that the server answers `OK` (RFC 9051 §6.2.1): nDPI names it IMAPS,
//! and the TLS handshake that follows gives the flow's TLS metadata.

use crate::proto::starttls::{self, ASKED, OPEN, TLS};
use crate::proto::{label, tls};
use crate::{Cx, Dir, Inspector, Label, Probe, TCP};

/// nDPI's IMAP label.
pub static LABEL: Label = label("IMAP", "Email");

/// The IMAP inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "imap",
    transports: TCP,
    ports: &[143],
    labels: &[&LABEL, &tls::IMAPS],
    min_udp: 0,
    ports_required: false,
    probe,
};

const COMMANDS: &[&[u8]] = &[b"CAPABILITY", b"LOGIN ", b"STARTTLS", b"AUTHENTICATE "];

fn probe(cx: &mut Cx<'_>) -> Probe {
    match starttls::phase(cx) {
        0 => {}
        TLS => return starttls::handshake(cx, &tls::IMAPS),
        _ => return later(cx),
    }
    let d = cx.data;
    if cx.hints.nth != 0 || !d.ends_with(b"\r\n") {
        return Probe::NotForUs;
    }
    let ok = match cx.hints.dir {
        Dir::ToClient => d.starts_with(b"* OK") || d.starts_with(b"* PREAUTH"),
        Dir::ToServer => {
            // A tag of letters and digits, a space, a command.
            let tag = d.iter().take(16).take_while(|b| b.is_ascii_alphanumeric()).count();
            let rest = d.get(tag + 1..).unwrap_or(&[]);
            tag > 0
                && d.get(tag) == Some(&b' ')
                && COMMANDS.iter().any(|c| {
                    rest.get(..c.len()).is_some_and(|p| p.eq_ignore_ascii_case(c))
                })
        }
    };
    if !ok {
        return Probe::NotForUs;
    }
    starttls::set(cx, OPEN);
    later(cx)
}

/// A packet of a flow known to be IMAP: the client's `STARTTLS`, the server's tagged answer.
fn later(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let asked = starttls::phase(cx) == ASKED;
    match cx.hints.dir {
        Dir::ToServer if starttls::asks(d, b"STARTTLS", true) => starttls::set(cx, ASKED),
        Dir::ToClient if asked && !d.starts_with(b"* ") => {
            // The tagged completion: "tag OK ..." (NO or BAD: no TLS).
            let tag = d.iter().take(16).take_while(|&&b| b != b' ').count();
            let ok = d
                .get(tag + 1..tag + 3)
                .is_some_and(|w| w.eq_ignore_ascii_case(b"OK"));
            if ok {
                starttls::set(cx, TLS);
                cx.want_more();
                return Probe::Certain(&tls::IMAPS);
            }
            starttls::set(cx, OPEN);
        }
        _ => {}
    }
    if starttls::again(cx) {
        cx.want_more();
    }
    Probe::Certain(&LABEL)
}

#[cfg(test)]
mod tests;
