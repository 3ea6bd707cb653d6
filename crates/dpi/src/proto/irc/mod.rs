//! IRC: the client's registration lines (`NICK name`, `USER user mode * :real name`,
//! `PASS`, `CAP LS`) or a server line (`:server NOTICE ...`, `:server 001 ...`), each ending
//! in CRLF.

use crate::proto::label;
use crate::{Cx, Dir, Inspector, Label, Probe, TCP};

/// nDPI's IRC label.
pub static LABEL: Label = label("IRC", "Chat");

/// The IRC inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "irc",
    transports: TCP,
    ports: &[6667, 6697, 194],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn word_count(l: &[u8]) -> usize {
    l.split(|&b| b == b' ').filter(|w| !w.is_empty()).count()
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let Some(line) = d.strip_suffix(b"\r\n").and_then(|l| l.split(|&b| b == b'\r').next()) else {
        return Probe::NotForUs;
    };
    let text = line.iter().all(|&b| b.is_ascii_graphic() || b == b' ');
    let ok = text
        && match cx.hints.dir {
            Dir::ToServer => {
                (line.starts_with(b"NICK ") && word_count(line) == 2)
                    || (line.starts_with(b"USER ") && word_count(line) >= 5 && crate::util::contains(line, b" :"))
                    || line.starts_with(b"CAP LS")
            }
            Dir::ToClient => {
                line.starts_with(b":")
                    && line.split(|&b| b == b' ').nth(1).is_some_and(|c| {
                        c == b"NOTICE" || (c.len() == 3 && c.iter().all(u8::is_ascii_digit))
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
