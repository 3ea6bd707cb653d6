//! SMTP (RFC 5321): the server's `220` greeting naming (E)SMTP, or the client's `EHLO` /
//! `HELO`. A `220` greeting that names neither SMTP nor FTP waits for the client's command.
//! Then the envelope: the addresses of the client's first `MAIL FROM:` and `RCPT TO:` commands,
//! read until the first recipient, `DATA`, `BDAT`, `STARTTLS` or `QUIT` (or the budget).
//! A `STARTTLS` (RFC 3207) that the server accepts with `220` makes the session SMTPS, as nDPI
//! names it once the session upgrades (its `smtp-starttls.pcap`: `SMTPS` on port 25).

use crate::meta::Field;
use crate::proto::label;
use crate::proto::starttls::{self, ASKED, OPEN, TLS};
use crate::util::starts_with_ci;
use crate::{Cx, Dir, Inspector, Label, Probe, TCP};

/// nDPI's SMTP label.
pub static LABEL: Label = label("SMTP", "Email");

/// The SMTP inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "smtp",
    transports: TCP,
    ports: &[25, 587, 2525],
    labels: &[&LABEL, &crate::proto::tls::SMTPS],
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
    // The state is STARTTLS's (`Upgrade`): once open, later segments are read as the envelope;
    // after the server's 220 to STARTTLS, the TLS handshake.
    match starttls::phase(cx) {
        0 => {}
        TLS => return starttls::handshake(cx, &crate::proto::tls::SMTPS),
        _ => return envelope(cx),
    }
    let d = cx.data;
    match cx.hints.dir {
        Dir::ToClient if cx.hints.nth == 0 && reply(d, b"220") => {
            if line_has(d, b"SMTP") {
                starttls::set(cx, OPEN);
                envelope(cx)
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
                starttls::set(cx, OPEN);
                envelope(cx)
            } else {
                Probe::NotForUs
            }
        }
        _ => Probe::NotForUs,
    }
}

/// Most command lines read per segment.
const MAX_LINES: usize = 32;

/// Read the client's envelope commands in this segment (whole lines only) and ask for more
/// until the first recipient or the end of the envelope.
fn envelope(cx: &mut Cx<'_>) -> Probe {
    if starttls::phase(cx) == ASKED {
        if cx.hints.dir == Dir::ToServer {
            cx.want_more();
            return Probe::Certain(&LABEL);
        }
        return if reply(cx.data, b"220") {
            // TLS follows: its handshake is read for the flow's TLS metadata.
            starttls::set(cx, TLS);
            cx.want_more();
            Probe::Certain(&crate::proto::tls::SMTPS)
        } else {
            Probe::Certain(&LABEL)
        };
    }
    let mut done = false;
    if cx.hints.dir == Dir::ToServer {
        let mut rest = cx.data;
        let mut n = 0;
        while let Some(nl) = rest.iter().position(|&b| b == b'\n') {
            if n >= MAX_LINES {
                break;
            }
            n += 1;
            let line = rest.get(..nl).unwrap_or(&[]);
            rest = rest.get(nl + 1..).unwrap_or(&[]);
            if starts_with_ci(line, b"MAIL FROM:") {
                cx.set(Field::SmtpFrom, address(line.get(10..).unwrap_or(&[])));
            } else if starts_with_ci(line, b"RCPT TO:") {
                cx.set(Field::SmtpRcpt, address(line.get(8..).unwrap_or(&[])));
                done = true;
            } else if starts_with_ci(line, b"STARTTLS") {
                starttls::set(cx, ASKED);
                cx.want_more();
                return Probe::Certain(&LABEL);
            } else if [&b"DATA"[..], b"BDAT", b"QUIT"]
                .iter()
                .any(|c| starts_with_ci(line, c))
            {
                done = true;
            }
        }
    }
    if !done {
        cx.want_more();
    }
    Probe::Certain(&LABEL)
}

/// The address of a `MAIL FROM:` / `RCPT TO:` argument (RFC 5321 §4.1.2): between `<` and `>`
/// (empty for the null path `<>`), or the first word when the brackets are missing.
pub(crate) fn address(arg: &[u8]) -> &[u8] {
    let a = arg.trim_ascii_start();
    match a.strip_prefix(b"<") {
        Some(inner) => {
            let end = inner.iter().position(|&b| b == b'>').unwrap_or(inner.len());
            inner.get(..end).unwrap_or(&[]).trim_ascii_end()
        }
        None => {
            let end = a
                .iter()
                .position(|&b| b == b' ' || b == b'\r')
                .unwrap_or(a.len());
            a.get(..end).unwrap_or(&[])
        }
    }
}

#[cfg(test)]
mod tests;
