//! XMPP (Jabber) client and server streams: an optional XML declaration, then a
//! `<stream:stream` element, or the server's `<stream:features>` answer; in a stream seen from
//! its middle, whole stanzas (`<iq `, `<presence`, `<message `) or the stream's end.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP};

/// nDPI's Jabber label.
pub static LABEL: Label = label("Jabber", "Web");

/// The Jabber inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "jabber",
    transports: TCP,
    ports: &[5222, 5269],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn find(h: &[u8], pat: &[u8]) -> bool {
    h.windows(pat.len()).any(|w| w == pat)
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let head = d.get(..d.len().min(512)).unwrap_or(&[]);
    if head.starts_with(b"<stream:stream") || head.starts_with(b"<stream:features") {
        return Probe::Certain(&LABEL);
    }
    // Stanzas: the segment holds whole elements (it ends where a tag does) and addresses
    // someone, or is the stream's closing tag.
    let stanza = [&b"<iq "[..], b"<presence", b"<message "]
        .iter()
        .any(|p| d.starts_with(p))
        && d.ends_with(b">")
        && (find(head, b" to='") || find(head, b" to=\"") || find(head, b" from='"));
    if stanza || d == b"</stream:stream>" {
        return Probe::Certain(&LABEL);
    }
    if head.starts_with(b"<?xml") {
        if find(head, b"<stream:stream") {
            return Probe::Certain(&LABEL);
        }
        // The declaration often travels alone; the stream element follows.
        if head.ends_with(b"?>") || head.ends_with(b"?>\n") {
            return Probe::Unsure;
        }
    }
    Probe::NotForUs
}

#[cfg(test)]
mod tests;
