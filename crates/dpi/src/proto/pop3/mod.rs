//! POP3 (RFC 1939): the server's `+OK` greeting as its first words, or a client that opens with
//! a POP3 command (`CAPA`, `USER`, `APOP`, `STLS`, `AUTH`) and gets `+OK` or `-ERR`. The flow
//! is then read for an `STLS` the server answers `+OK` (RFC 2595 §4): nDPI names it POPS, and
//! the TLS handshake that follows gives the flow's TLS metadata.

use crate::proto::starttls::{self, ASKED, OPEN, TLS};
use crate::proto::{label, tls};
use crate::{Cx, Dir, Inspector, Label, Probe, TCP};

/// nDPI's POP3 label.
pub static LABEL: Label = label("POP3", "Email");

/// The POP3 inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "pop3",
    transports: TCP,
    ports: &[110],
    labels: &[&LABEL, &tls::POPS],
    min_udp: 0,
    ports_required: false,
    probe,
};

const COMMANDS: &[&[u8]] = &[b"CAPA", b"USER ", b"APOP ", b"STLS", b"AUTH"];

fn probe(cx: &mut Cx<'_>) -> Probe {
    match starttls::phase(cx) {
        0 => {}
        TLS => return starttls::handshake(cx, &tls::POPS),
        _ => return later(cx),
    }
    let d = cx.data;
    let line = d.ends_with(b"\r\n");
    match cx.hints.dir {
        Dir::ToClient if cx.hints.nth == 0 => {
            if line && (d.starts_with(b"+OK") || d.starts_with(b"-ERR")) {
                starttls::set(cx, OPEN);
                later(cx)
            } else {
                Probe::NotForUs
            }
        }
        Dir::ToServer if cx.hints.nth == 0 => {
            let known = COMMANDS.iter().any(|c| {
                d.get(..c.len()).is_some_and(|p| p.eq_ignore_ascii_case(c))
            });
            if known && line {
                Probe::Unsure
            } else {
                Probe::NotForUs
            }
        }
        _ => Probe::Unsure,
    }
}

/// A packet of a flow known to be POP3: the client's `STLS`, the server's answer.
fn later(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let asked = starttls::phase(cx) == ASKED;
    match cx.hints.dir {
        Dir::ToServer if starttls::asks(d, b"STLS", false) => starttls::set(cx, ASKED),
        Dir::ToClient if asked => {
            if d.starts_with(b"+OK") {
                starttls::set(cx, TLS);
                cx.want_more();
                return Probe::Certain(&tls::POPS);
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
