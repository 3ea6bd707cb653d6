//! POP3 (RFC 1939): the server's `+OK` greeting as its first words, or a client that opens with
//! a POP3 command (`CAPA`, `USER`, `APOP`, `STLS`, `AUTH`) and gets `+OK` or `-ERR`.

use crate::proto::label;
use crate::{Cx, Dir, Inspector, Label, Probe, TCP};

/// nDPI's POP3 label.
pub static LABEL: Label = label("POP3", "Email");

/// The POP3 inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "pop3",
    transports: TCP,
    ports: &[110],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

const COMMANDS: &[&[u8]] = &[b"CAPA", b"USER ", b"APOP ", b"STLS", b"AUTH"];

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let line = d.ends_with(b"\r\n");
    match cx.hints.dir {
        Dir::ToClient if cx.hints.nth == 0 => {
            if line && (d.starts_with(b"+OK") || d.starts_with(b"-ERR")) {
                Probe::Certain(&LABEL)
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

#[cfg(test)]
mod tests;
