//! WS-Discovery (WSD): SOAP 1.2 envelopes over UDP, multicast to 239.255.255.250 or FF02::C
//! port 3702 (Hello, Bye, Probe, Resolve) and unicast answers (ProbeMatches, ResolveMatches).
//! Spec: Web Services Dynamic Discovery, April 2005 (namespace
//! `http://schemas.xmlsoap.org/ws/2005/04/discovery`) and OASIS WS-Discovery 1.1, 2009
//! (`http://docs.oasis-open.org/ws-dd/ns/discovery/2009/01`), section 2.1 (SOAP over UDP) and
//! the message outlines of sections 4-6.
//!
//! Checked: the datagram is XML (optional byte order mark and white space, then `<`), and its
//! first KiB holds both a SOAP `Envelope` element and one of the two WS-Discovery namespaces.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, UDP};

/// nDPI's WSD label.
pub static LABEL: Label = label("WSD", "Network");

/// The WS-Discovery inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "wsd",
    transports: UDP,
    ports: &[3702],
    labels: &[&LABEL],
    min_udp: 48,
    ports_required: false,
    probe,
};

const NS_2005: &[u8] = b"schemas.xmlsoap.org/ws/2005/04/discovery";
const NS_2009: &[u8] = b"docs.oasis-open.org/ws-dd/ns/discovery/2009/01";

use crate::util::contains as find;

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let d = d.strip_prefix(b"\xef\xbb\xbf").unwrap_or(d);
    let lead = d.iter().take(16).take_while(|b| b.is_ascii_whitespace()).count();
    let head = d.get(lead..d.len().min(1024)).unwrap_or(&[]);
    if head.first() != Some(&b'<') {
        return Probe::NotForUs;
    }
    if find(head, b"Envelope") && (find(head, NS_2005) || find(head, NS_2009)) {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
