//! FTP control connections (RFC 959): the server's `220` greeting naming FTP, or, after a
//! greeting that names nothing, the client's first command (`USER`, `AUTH TLS`, `FEAT`...).

use crate::proto::label;
use crate::proto::smtp::{line_has, reply};
use crate::{Cx, Dir, Inspector, Label, Probe, TCP};

/// nDPI's FTP_CONTROL label.
pub static LABEL: Label = label("FTP_CONTROL", "Download");

/// The FTP control inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "ftp",
    transports: TCP,
    ports: &[21],
    probe,
};

const COMMANDS: &[&[u8]] = &[b"USER ", b"AUTH TLS", b"AUTH SSL", b"FEAT", b"SYST", b"OPTS "];

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    match cx.hints.dir {
        Dir::ToClient if cx.hints.nth == 0 && reply(d, b"220") => {
            if line_has(d, b"FTP") {
                Probe::Certain(&LABEL)
            } else if line_has(d, b"SMTP") {
                Probe::NotForUs
            } else {
                Probe::Unsure
            }
        }
        // A command after a greeting that named nothing (POP3 uses USER too, but its
        // greeting is "+OK", which this inspector refused).
        Dir::ToServer if cx.hints.nth == 0 && d.ends_with(b"\r\n") => {
            let known = COMMANDS.iter().any(|c| {
                d.get(..c.len()).is_some_and(|p| p.eq_ignore_ascii_case(c))
            });
            // "USER name" has one argument (IRC's USER has four).
            let one_arg = !d.starts_with(b"USER ")
                || d.get(5..d.len() - 2).is_some_and(|a| !a.is_empty() && !a.contains(&b' '));
            if known && one_arg && !cx.hints.port(110) {
                Probe::Certain(&LABEL)
            } else {
                Probe::NotForUs
            }
        }
        _ => Probe::NotForUs,
    }
}

#[cfg(test)]
mod tests;
