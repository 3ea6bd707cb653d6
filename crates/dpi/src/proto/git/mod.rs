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
    let known = [&b"git-upload-pack "[..], b"git-receive-pack ", b"git-upload-archive "]
        .iter()
        .any(|c| cmd.starts_with(c));
    if known && len == d.len() {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
