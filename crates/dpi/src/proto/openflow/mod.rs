//! OpenFlow (OpenFlow Switch Specification 1.5.1 section 7.1): every message starts with a
//! header of version (0x01 for 1.0 to 0x06 for 1.5), type (at most 35), length (at least the
//! 8-byte header) and transaction id. The header is too generic to be trusted off the OpenFlow
//! ports (6653, and 6633 before IANA's assignment), so the inspector is bound to them. There the
//! segment must open with OFPT_HELLO (type 0), which each side sends first (section 6.3.1), and
//! be a run of whole messages of one version.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP};

/// nDPI's OpenFlow label.
pub static LABEL: Label = label("OpenFlow", "Network");

/// The OpenFlow inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "openflow",
    transports: TCP,
    ports: &[6653, 6633],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: true,
    probe,
};

/// Messages walked in one segment.
const MAX_MESSAGES: usize = 16;

fn messages(d: &[u8]) -> bool {
    let (Some(&version), Some(&0)) = (d.first(), d.get(1)) else {
        return false;
    };
    if !(1..=6).contains(&version) {
        return false;
    }
    let mut at = 0usize;
    for _ in 0..MAX_MESSAGES {
        let (Some(&v), Some(&kind), Some(l)) = (d.get(at), d.get(at + 1), d.get(at + 2..at + 4))
        else {
            return false;
        };
        let len = usize::from(u16::from_be_bytes([l[0], l[1]]));
        if v != version || kind > 35 || len < 8 {
            return false;
        }
        if at == 0 && !hello_body(version, d.get(8..len).unwrap_or(&[1])) {
            return false;
        }
        at += len;
        if at >= d.len() {
            return at == d.len();
        }
    }
    false
}

/// The first message's body, an OFPT_HELLO's: none before OpenFlow 1.3 (versions 1-3: the
/// header alone, 1.0-1.2 §5.5.1), else hello elements (1.3.5 §7.5.1): each a type
/// (OFPHET_VERSIONBITMAP, 1, the only one defined), a length of at least 4, padded to 8 bytes.
/// A TPKT header (RFC 1006: 3, 0, a length: RDP, H.323, S7, MMS, Diameter's neighbours) reads
/// as a version-3 HELLO with a body: on 6633 and 6653 those flows were OpenFlow.
fn hello_body(version: u8, mut b: &[u8]) -> bool {
    if version <= 3 {
        return b.is_empty();
    }
    for _ in 0..MAX_MESSAGES {
        if b.is_empty() {
            return true;
        }
        let (Some(t), Some(l)) = (b.get(0..2), b.get(2..4)) else {
            return false;
        };
        let len = usize::from(u16::from_be_bytes([l[0], l[1]]));
        let padded = len.next_multiple_of(8);
        if t != [0, 1] || len < 4 || padded > b.len() {
            return false;
        }
        b = &b[padded..];
    }
    false
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    let on_port = INSPECTOR.on_ports(&cx.hints);
    if on_port && messages(cx.data) {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
