//! The git protocol (TCP 9418): the client's first pkt-line, four hex digits giving its length
//! (the segment), then `git-upload-pack `, `git-receive-pack ` or `git-upload-archive `.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP};

/// nDPI's Git label.
pub static LABEL: Label = label("Git", "Collaborative");

/// The git inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "git",
    transports: TCP,
    ports: &[9418],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

/// The commands a client's first pkt-line starts with.
const COMMANDS: [&[u8]; 3] = [b"git-upload-pack ", b"git-receive-pack ", b"git-upload-archive "];

/// A pkt-line's length counts its four digits; lines carry at most 65,516 bytes of data.
const MAX_LINE: usize = 65_520;

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let Some(len) = d
        .get(..4)
        .and_then(|h| std::str::from_utf8(h).ok())
        .and_then(|h| usize::from_str_radix(h, 16).ok())
    else {
        return Probe::NotForUs;
    };
    let cmd = d.get(4..).unwrap_or(&[]);
    let known = COMMANDS.iter().any(|c| cmd.starts_with(c));
    if known && len == d.len() {
        return Probe::Certain(&LABEL);
    }
    // The line cut short: git writes the four digits and the line in two writes, two segments
    // with Nagle off (git 2.39 over a veth: "003b", then the 55 bytes). What has come so far
    // must begin a command (or be the digits alone); the rest is awaited, reassembled.
    let shortest = 4 + COMMANDS.iter().map(|c| c.len()).min().unwrap_or(0);
    let begins = COMMANDS
        .iter()
        .any(|c| c.starts_with(&cmd[..cmd.len().min(c.len())]));
    if begins && d.len() < len && (shortest..=MAX_LINE).contains(&len) {
        cx.incomplete();
        Probe::Unsure
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
