//! NNTP, the Network News Transfer Protocol (nDPI's Usenet), TCP 119 (RFC 3977). On connect the
//! server greets with a single response line, code 200 (posting allowed) or 201 (no posting)
//! (RFC 3977 §5.1.1), at most 512 octets with its CRLF (§3.1); the client then sends commands
//! such as `CAPABILITIES` (§5.2), `MODE READER` (§5.3), `AUTHINFO USER|PASS|SASL` (RFC 4643
//! §2.3, §2.4), `MODE STREAM`/`CHECK`/`TAKETHIS` (RFC 4644), `IHAVE` (RFC 3977 §6.3.2) or
//! `XOVER`/`LISTGROUP`/`NEWNEWS`/`NEWGROUPS`.
//!
//! Checked: the greeting is one printable line `200 ` or `201 ` then text, ending in CRLF, no
//! longer than 512 bytes, and it is claimed on port 119 or 433 or when its text names news
//! software (`news`, `NNTP`, `NNRP`, `Usenet`, any case), since a bare "200 " line is three
//! digits only; elsewhere the client's first command decides. A client's first command is
//! claimed only when it is one of the NNTP-only commands above, a whole CRLF-ended line.

use crate::proto::label;
use crate::{Cx, Dir, Inspector, Label, Probe, TCP};

/// nDPI's Usenet label.
pub static LABEL: Label = label("Usenet", "Web");

/// The NNTP inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "usenet",
    transports: TCP,
    ports: &[119, 433],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

/// The longest response or command line (RFC 3977 §3.1: 512 octets with the CRLF).
const MAX_LINE: usize = 512;

/// Words a greeting's text holds when it names news software (lower case).
const NEWS_WORDS: &[&[u8]] = &[b"news", b"nntp", b"nnrp", b"usenet"];

/// Commands only NNTP clients open with: whole lines (`true`) or followed by arguments.
const COMMANDS: &[(&[u8], bool)] = &[
    (b"CAPABILITIES", true),
    (b"MODE READER", true),
    (b"MODE STREAM", true),
    (b"AUTHINFO USER ", false),
    (b"AUTHINFO PASS ", false),
    (b"AUTHINFO SASL ", false),
    (b"CHECK <", false),
    (b"TAKETHIS <", false),
    (b"IHAVE <", false),
    (b"XOVER", false),
    (b"LISTGROUP", false),
    (b"NEWNEWS ", false),
    (b"NEWGROUPS ", false),
];

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    match cx.hints.dir {
        Dir::ToClient => {
            // The cheap test first: the reply code.
            if !(d.starts_with(b"200 ") || d.starts_with(b"201 ")) {
                return Probe::NotForUs;
            }
            let Some(line) = one_line(d) else {
                return Probe::NotForUs;
            };
            let text = line.get(4..).unwrap_or(&[]);
            let names_news = NEWS_WORDS.iter().any(|w| {
                text.windows(w.len()).take(MAX_LINE).any(|t| t.eq_ignore_ascii_case(w))
            });
            if names_news || cx.hints.port(119) || cx.hints.port(433) {
                Probe::Certain(&LABEL)
            } else {
                // A "200 " line elsewhere: let the client's first command tell.
                Probe::Unsure
            }
        }
        Dir::ToServer => {
            if !COMMANDS.iter().any(|&(c, _)| head(d, c)) {
                return Probe::NotForUs;
            }
            let Some(line) = one_line(d) else {
                return Probe::NotForUs;
            };
            let known = COMMANDS
                .iter()
                .any(|&(c, whole)| head(line, c) && (!whole || line.len() == c.len()));
            if known {
                Probe::Certain(&LABEL)
            } else {
                Probe::NotForUs
            }
        }
    }
}

/// Does `l` start with `c`, in any case?
fn head(l: &[u8], c: &[u8]) -> bool {
    l.get(..c.len()).is_some_and(|h| h.eq_ignore_ascii_case(c))
}

/// The segment as one CRLF-ended line of printable text (without the CRLF).
fn one_line(d: &[u8]) -> Option<&[u8]> {
    if d.len() > MAX_LINE {
        return None;
    }
    let line = d.strip_suffix(b"\r\n")?;
    (!line.is_empty() && line.iter().all(|&c| c == b' ' || c == b'\t' || c.is_ascii_graphic()))
        .then_some(line)
}

#[cfg(test)]
mod tests;
