//! XMPP (Jabber) client and server streams: an optional XML declaration, then a
//! `<stream:stream` element, or the server's `<stream:features>` answer; in a stream seen from
//! its middle, whole stanzas (`<iq `, `<presence`, `<message `) or the stream's end. The stream
//! is then read for STARTTLS (RFC 6120 §5.4.2): the client's `<starttls` element and the
//! server's `<proceed`; the TLS handshake that follows gives the flow's TLS metadata (SNI,
//! fingerprints, certificate), and the flow stays Jabber, as nDPI names it.

use crate::proto::label;
use crate::proto::starttls::{self, ASKED, OPEN, TLS};
use crate::{Cx, Dir, Inspector, Label, Probe, TCP};

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

use crate::util::contains as find;

fn probe(cx: &mut Cx<'_>) -> Probe {
    match starttls::phase(cx) {
        0 => {}
        TLS => return starttls::handshake(cx, &LABEL),
        _ => return later(cx),
    }
    match stream(cx) {
        Probe::Certain(l) => {
            starttls::set(cx, OPEN);
            cx.want_more();
            Probe::Certain(l)
        }
        r => r,
    }
}

/// A segment of a stream known to be XMPP: the client's `<starttls`, the server's answer.
fn later(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let head = d.get(..d.len().min(512)).unwrap_or(&[]);
    let asked = starttls::phase(cx) == ASKED;
    match cx.hints.dir {
        Dir::ToServer if find(head, b"<starttls") && find(head, TLS_NS) => {
            starttls::set(cx, ASKED)
        }
        Dir::ToClient if asked && find(head, b"<proceed") && find(head, TLS_NS) => {
            starttls::set(cx, TLS);
            cx.want_more();
            return Probe::Certain(&LABEL);
        }
        Dir::ToClient if asked && find(head, b"<failure") => starttls::set(cx, OPEN),
        _ => {}
    }
    if starttls::again(cx) {
        cx.want_more();
    }
    Probe::Certain(&LABEL)
}

/// The STARTTLS namespace (RFC 6120 §5.4.2).
const TLS_NS: &[u8] = b"urn:ietf:params:xml:ns:xmpp-tls";

/// The first look at a flow: a stream's opening or stanzas.
fn stream(cx: &mut Cx<'_>) -> Probe {
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
