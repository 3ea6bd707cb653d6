//! FTP control connections (RFC 959): a `220` greeting that does not name SMTP, then the
//! client's first command decides: `AUTH TLS`/`AUTH SSL` (RFC 4217) makes it FTPS as nDPI
//! names it, an FTP command (`USER name`, `FEAT`, `SYST`, `OPTS`...) plain FTP control. A
//! client that speaks first is judged by its command alone.

use crate::proto::label;
use crate::proto::smtp::{line_has, reply};
use crate::{Cx, Dir, Inspector, Label, Probe, TCP};

/// nDPI's FTP_CONTROL label.
pub static LABEL: Label = label("FTP_CONTROL", "Download");
/// nDPI's FTPS label (explicit TLS).
pub static FTPS: Label = label("FTPS", "Download");

/// The FTP control inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "ftp",
    transports: TCP,
    ports: &[21],
    labels: &[&LABEL, &FTPS],
    min_udp: 0,
    ports_required: false,
    probe,
};

const COMMANDS: &[&[u8]] = &[b"USER ", b"FEAT", b"SYST", b"OPTS ", b"PASS "];

fn starts_ci(d: &[u8], p: &[u8]) -> bool {
    d.get(..p.len()).is_some_and(|x| x.eq_ignore_ascii_case(p))
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    match cx.hints.dir {
        Dir::ToClient if cx.hints.nth == 0 && reply(d, b"220") => {
            if line_has(d, b"SMTP") {
                Probe::NotForUs
            } else {
                Probe::Unsure
            }
        }
        // POP3 uses USER too, but its greeting is "+OK", which this inspector refused.
        Dir::ToServer if cx.hints.nth == 0 && d.ends_with(b"\r\n") => {
            if starts_ci(d, b"AUTH TLS") || starts_ci(d, b"AUTH SSL") {
                return Probe::Certain(&FTPS);
            }
            let known = COMMANDS.iter().any(|c| starts_ci(d, c));
            // "USER name" has one argument (IRC's USER has four).
            let one_arg = !starts_ci(d, b"USER ")
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
