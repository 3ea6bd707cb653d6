//! CoAP (RFC 7252) over UDP. The 4-byte header (version 1, a type, a token length of 0-8, a
//! registered code, a message id) is too weak alone, since many text payloads pass it, so the
//! protocol is only claimed on CoAP's ports (5683, and 61616-61631 for 6LoWPAN-compressed
//! ports, RFC 7252 section 12.7) and the whole message must parse: token, options with their
//! deltas and lengths (section 3.1), and a payload marker only before a non-empty payload.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, UDP};

/// nDPI's COAP label.
pub static LABEL: Label = label("COAP", "RPC");

/// The CoAP inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "coap",
    transports: UDP,
    ports: &[
        5683, 61616, 61617, 61618, 61619, 61620, 61621, 61622, 61623, 61624, 61625, 61626, 61627,
        61628, 61629, 61630, 61631,
    ],
    labels: &[&LABEL],
    min_udp: 4,
    ports_required: true,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let on_port = INSPECTOR.on_ports(&cx.hints);
    if on_port && is_coap(cx.data) {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

/// A code registered in the "CoAP Codes" registry: methods 0.01-0.07 (RFC 7252, 8132), the
/// responses of RFC 7252 (2.01-2.05, 4.00-4.06, 4.12, 4.13, 4.15, 5.00-5.05) and of later RFCs
/// (2.31 and 4.08 RFC 7959, 4.09 and 4.22 RFC 8132, 4.29 RFC 8516, 5.08 RFC 8768).
fn known_code(code: u8) -> bool {
    let detail = code & 0x1f;
    match code >> 5 {
        0 => detail <= 7,
        2 => matches!(detail, 1..=5 | 31),
        4 => matches!(detail, 0..=6 | 8 | 9 | 12 | 13 | 15 | 22 | 29),
        5 => matches!(detail, 0..=5 | 8),
        _ => false,
    }
}

/// An option's extended delta or length (section 3.1): nibbles 13 and 14 take one or two more
/// bytes; 15 is reserved.
fn extended(nibble: u8, d: &[u8], at: &mut usize) -> Option<usize> {
    match nibble {
        0..=12 => Some(usize::from(nibble)),
        13 => {
            let b = *d.get(*at)?;
            *at += 1;
            Some(usize::from(b) + 13)
        }
        14 => {
            let b = d.get(*at..*at + 2)?;
            *at += 2;
            Some(usize::from(u16::from_be_bytes([b[0], b[1]])) + 269)
        }
        _ => None,
    }
}

/// A whole CoAP message (section 3).
fn is_coap(d: &[u8]) -> bool {
    let (Some(&first), Some(&code)) = (d.first(), d.get(1)) else {
        return false;
    };
    let tkl = usize::from(first & 0x0f);
    if first >> 6 != 1 || tkl > 8 || !known_code(code) || d.len() < 4 {
        return false;
    }
    if code == 0 {
        // An Empty message is the header alone (section 4.1).
        return d.len() == 4 && tkl == 0;
    }
    let mut at = 4 + tkl;
    if at > d.len() {
        return false;
    }
    // Each option takes at least one byte, so the datagram bounds the loop; the cap is a guard.
    for _ in 0..1500 {
        let Some(&b) = d.get(at) else {
            return true; // options end with the datagram
        };
        at += 1;
        if b == 0xff {
            return at < d.len(); // a marker needs a payload after it
        }
        if extended(b >> 4, d, &mut at).is_none() {
            return false;
        }
        let Some(len) = extended(b & 0x0f, d, &mut at) else {
            return false;
        };
        at += len;
        if at > d.len() {
            return false;
        }
    }
    false
}

#[cfg(test)]
mod tests;
