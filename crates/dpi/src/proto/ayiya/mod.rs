//! AYIYA, "Anything In Anything" (draft-massar-v6ops-ayiya-02, section 5), the SixXS tunnel
//! protocol, UDP port 5072: a 4-byte header of nibbles (identity length as a power of two and
//! identity type; signature length in 4-byte words and hash method; authentication method and
//! opcode), the next-header protocol number, a 32-bit epoch time, the identity, the signature,
//! then the tunnelled packet.
//!
//! Checked: identity type 0-2 with a length of at most 2^6, a hash method 0-2 whose signature
//! length matches it (none 0, MD5 4 words, SHA-1 5 words), authentication method 0-2, opcode
//! 0-7, a next header of IPv4, TCP, UDP, IPv6, ICMPv6 or none, headers that fit, and a carried
//! IPv6/IPv4 packet that starts with its version. The fields are a few bits each, so the flow
//! must use port 5072 (`ports_required`). (The capture layer normally decapsulates AYIYA; this
//! names the outer flow when it is inspected as UDP.)

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, UDP};

/// nDPI's Ayiya label.
pub static LABEL: Label = label("Ayiya", "Network");

/// The AYIYA inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "ayiya",
    transports: UDP,
    ports: &[5072],
    labels: &[&LABEL],
    min_udp: 8,
    ports_required: true,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let (Some(&id), Some(&sig), Some(&op), Some(&next)) = (d.first(), d.get(1), d.get(2), d.get(3))
    else {
        return Probe::NotForUs;
    };
    let (id_len, id_type) = (id >> 4, id & 0xf);
    let (sig_words, hash) = (sig >> 4, sig & 0xf);
    let (auth, opcode) = (op >> 4, op & 0xf);
    let sig_ok = matches!((hash, sig_words), (0, 0) | (1, 4) | (2, 5));
    if !cx.hints.port(5072)
        || id_len > 6
        || id_type > 2
        || !sig_ok
        || auth > 2
        || opcode > 7
        || ![4, 6, 17, 41, 58, 59].contains(&next)
    {
        return Probe::NotForUs;
    }
    let payload_at = 8 + (1usize << id_len) + 4 * usize::from(sig_words);
    let ok = match d.get(payload_at..) {
        None => false,
        Some([]) => true,
        Some([first, ..]) => match next {
            41 => first >> 4 == 6,
            4 => first >> 4 == 4,
            _ => true,
        },
    };
    if ok {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
