//! Legacy Skype (peer-to-peer Skype before Teams) media and signalling over UDP. Its datagrams
//! are encrypted; all that shows is an obfuscated header whose third byte is a message type,
//! 0x02 for payload. nDPI names a flow `Skype_Teams.Skype_TeamsCall` when one of its first
//! four datagrams is at least 16 bytes long, its third byte is 0x02 and its first byte looks
//! like RTP version 2 (0x80-0xbf), a small id (0x02-0x0f) or 0x70-0x7f, with 0x00, 0x01 and
//! 0x30 left out (CAPWAP, HSRP/RADIUS, SNMP). That is two bytes of evidence, so the test here
//! is narrower than nDPI's where the facts allow: only while every datagram so far carried
//! the 0x02 type in an 11-byte header or more (nDPI stops at the first that does not), none on
//! ports 80 and 1119 (HTTP-like and Battle.net traffic, as nDPI) or 8801 (Zoom), none to
//! broadcast or multicast addresses, and none on a port that another inspector of the
//! registry is hinted to (where nDPI's dissector for that protocol comes first). It is
//! registered after the other UDP inspectors (only `sig` follows), so a datagram that a
//! stronger header check names on sight (STUN, DTLS, QUIC, RTCP, ...) is theirs.
//!
//! Facts (nDPI's `skype.pcap.out` and `skype_udp.pcap.out`): 144 flows from one host's Skype
//! port (13021) to relays on 33033/40001-40034 and to peers, each named on its first datagram
//! of 18-37 bytes; one flow named on its fourth datagram.

use crate::{Cx, Inspector, Label, Probe, UDP};

/// nDPI's label: master `Skype_Teams`, application `Skype_TeamsCall`, category VoIP.
pub static LABEL: Label = Label {
    app: "Skype_TeamsCall",
    master: "Skype_Teams",
    category: "VoIP",
};

/// The legacy Skype UDP inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "skype",
    transports: UDP,
    ports: &[],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

/// Datagrams of a flow (per direction) the check looks at, as nDPI's first four of the flow.
const FIRST: u8 = 4;

/// Ports whose traffic nDPI keeps out of this check (Battle.net, HTTP-like), and Zoom's media
/// port, where the same header means Zoom.
const NOT_ON: [u16; 3] = [80, 1119, 8801];

/// Does the first byte fit: RTP version 2, 0x02-0x0f, or 0x70-0x7f, never 0x30?
fn first_byte(b: u8) -> bool {
    matches!(b, 0x02..=0x0f | 0x70..=0x7f | 0x80..=0xbf)
}

/// Is `d` a datagram nDPI takes for legacy Skype?
pub fn is_skype(d: &[u8]) -> bool {
    let (Some(&b0), Some(&b2)) = (d.first(), d.get(2)) else {
        return false;
    };
    d.len() >= 16 && b2 == 0x02 && first_byte(b0)
}

/// Is `port` one that another inspector of the registry is hinted to (RADIUS 1812, CIP 2222,
/// ...)? Binary headers with a small type byte and a length of 512-767 bytes there pass
/// Skype's test; nDPI's own dissector for them runs first and names them. UDP 443 stays open:
/// Skype falls back to it (skype.pcap.out flows 229 and 232).
fn claimed(port: u16) -> bool {
    port != 443
        && crate::proto::REGISTRY
            .iter()
            .any(|i| i.transports & UDP != 0 && i.ports.contains(&port))
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    let h = cx.hints;
    if h.multicast || NOT_ON.iter().any(|&p| h.port(p)) || h.nth >= FIRST {
        return Probe::NotForUs;
    }
    if is_skype(cx.data) {
        // Rare enough that the registry walk costs nothing in the common case.
        if claimed(h.server_port) || claimed(h.client_port) {
            return Probe::NotForUs;
        }
        return Probe::Certain(&LABEL);
    }
    // nDPI keeps looking only while the datagrams carry the payload type (and are long enough
    // to hold Skype's 11-byte id, flags, IV and CRC header).
    if cx.data.len() >= 11 && cx.data.get(2) == Some(&0x02) {
        Probe::Unsure
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
