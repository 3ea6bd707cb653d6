//! IMAP (RFC 9051): the server's untagged `* OK` or `* PREAUTH` greeting, or a client that
//! opens with a tag and `CAPABILITY`, `LOGIN`, `STARTTLS` or `AUTHENTICATE`.

use crate::proto::label;
use crate::{Cx, Dir, Inspector, Label, Probe, TCP};

/// nDPI's IMAP label.
pub static LABEL: Label = label("IMAP", "Email");

/// The IMAP inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "imap",
    transports: TCP,
    ports: &[143],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

const COMMANDS: &[&[u8]] = &[b"CAPABILITY", b"LOGIN ", b"STARTTLS", b"AUTHENTICATE "];

fn probe(cx: &mut Cx<'_>) -> Probe {
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
    if ok {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
