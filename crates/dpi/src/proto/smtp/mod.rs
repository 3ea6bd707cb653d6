//! SMTP (RFC 5321): the server's `220` greeting naming (E)SMTP, or the client's `EHLO` /
//! `HELO`. A `220` greeting that names neither SMTP nor FTP waits for the client's command.

use crate::proto::label;
use crate::{Cx, Dir, Inspector, Label, Probe, TCP};

/// nDPI's SMTP label.
pub static LABEL: Label = label("SMTP", "Email");

/// The SMTP inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "smtp",
    transports: TCP,
    ports: &[25, 587, 2525],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

/// Case-insensitive search of `pat` in the first line of `d`.
pub(crate) fn line_has(d: &[u8], pat: &[u8]) -> bool {
    let end = d.iter().position(|&b| b == b'\n').unwrap_or(d.len()).min(512);
    d.get(..end)
        .unwrap_or(&[])
        .windows(pat.len())
        .any(|w| w.eq_ignore_ascii_case(pat))
}

/// A reply line: three digits then a space or dash, ending in CRLF.
pub(crate) fn reply(d: &[u8], code: &[u8; 3]) -> bool {
    d.starts_with(code)
        && matches!(d.get(3), Some(b' ' | b'-'))
        && d.ends_with(b"\r\n")
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    match cx.hints.dir {
        Dir::ToClient if cx.hints.nth == 0 && reply(d, b"220") => {
            if line_has(d, b"SMTP") {
                Probe::Certain(&LABEL)
            } else if line_has(d, b"FTP") {
                Probe::NotForUs
            } else {
                Probe::Unsure
            }
        }
        Dir::ToServer if cx.hints.nth == 0 => {
            let cmd = d.get(..5).unwrap_or(&[]);
            if (cmd.eq_ignore_ascii_case(b"EHLO ") || cmd.eq_ignore_ascii_case(b"HELO "))
                && d.ends_with(b"\r\n")
            {
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
