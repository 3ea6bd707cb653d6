//! Munin (nDPI's Munin): the text protocol between the munin master and `munin-node` on TCP 4949.
//! On connect the node greets with `# munin node at <hostname>\n` before any command (munin's
//! "Munin node protocol" documentation, `munin-node(1)`); the master then sends `list`, `fetch`,
//! `config`, `cap`, `nodes`, `version` or `quit` lines.
//!
//! Checked: the greeting literal, then a host name of printable characters without spaces, and
//! the newline ending the segment.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP};

/// nDPI's Munin label.
pub static LABEL: Label = label("Munin", "System");

/// The Munin inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "munin",
    transports: TCP,
    ports: &[4949],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

const GREETING: &[u8] = b"# munin node at ";

fn probe(cx: &mut Cx<'_>) -> Probe {
    let Some(rest) = cx.data.strip_prefix(GREETING) else {
        return Probe::NotForUs;
    };
    match rest {
        [host @ .., b'\n'] if (1..=255).contains(&host.len()) => {
            let host = host.strip_suffix(b"\r").unwrap_or(host);
            if !host.is_empty() && host.iter().all(u8::is_ascii_graphic) {
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
