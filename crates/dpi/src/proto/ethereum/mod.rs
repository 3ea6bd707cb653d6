//! Ethereum devp2p (nDPI's ETHEREUM), on the node ports 30300-30305 (the range of nDPI's
//! dissector, src/lib/protocols/mining.c `isEthPort`; 30303 is the clients' documented default).
//! The formats are those of the devp2p specifications (rlpx.md, EIP-8, discv4.md):
//!
//! * TCP: the RLPx handshake opens with an EIP-8 `auth` (and the answer with `ack`): a
//!   big-endian u16 size equal to the rest of the segment, then an ECIES ciphertext whose first
//!   byte is 0x04 (the uncompressed ephemeral public key), 16 bytes of IV and a 32-byte MAC.
//!   The older fixed 307-byte `auth` starts with that 0x04 directly.
//! * UDP: node discovery v4: a 32-byte hash, a 65-byte signature whose last byte (recovery id)
//!   is 0 or 1, a packet type 1-6 (ping, pong, findnode, neighbors, ENR request/response), and
//!   one RLP list that fills the rest of the datagram.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP, UDP};

/// nDPI's ETHEREUM label.
pub static LABEL: Label = label("ETHEREUM", "Crypto_Currency");

/// The Ethereum inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "ethereum",
    transports: TCP | UDP,
    ports: &[30300, 30301, 30302, 30303, 30304, 30305],
    labels: &[&LABEL],
    min_udp: 99,
    ports_required: true,
    probe,
};

/// ECIES overhead: public key (65), IV (16), MAC (32).
const ECIES: usize = 65 + 16 + 32;
/// Size of a pre-EIP-8 `auth` message.
const LEGACY_AUTH: usize = 307;

/// The RLPx handshake message, EIP-8 framed or legacy.
fn rlpx_handshake(d: &[u8]) -> bool {
    if d.len() == LEGACY_AUTH && d.first() == Some(&0x04) {
        return true;
    }
    let (Some(&a), Some(&b), Some(&k)) = (d.first(), d.get(1), d.get(2)) else {
        return false;
    };
    let size = usize::from(u16::from_be_bytes([a, b]));
    k == 0x04 && size == d.len() - 2 && size > ECIES && size <= 2048
}

/// Header length and body length of the RLP list at the start of `d`.
fn rlp_list(d: &[u8]) -> Option<(usize, usize)> {
    let h = *d.first()?;
    match h {
        0xc0..=0xf7 => Some((1, usize::from(h - 0xc0))),
        0xf8..=0xff => {
            let n = usize::from(h - 0xf7);
            if n > 2 {
                return None; // a discovery datagram is at most 1280 bytes
            }
            let mut len = 0usize;
            for &x in d.get(1..1 + n)? {
                len = len << 8 | usize::from(x);
            }
            // Canonical RLP: the long form only for bodies over 55 bytes.
            (len > 55).then_some((1 + n, len))
        }
        _ => None,
    }
}

/// A node discovery v4 datagram.
fn discovery_v4(d: &[u8]) -> bool {
    if d.len() > 1280 {
        return false;
    }
    let (Some(&recid), Some(&kind), Some(rest)) = (d.get(96), d.get(97), d.get(98..)) else {
        return false;
    };
    if recid > 1 || !(1..=6).contains(&kind) {
        return false;
    }
    matches!(rlp_list(rest), Some((h, n)) if h + n == rest.len())
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    // Bound to its ports here too, not only by the scheduler's port filter (as the property
    // test `inspectors_never_panic` asks of every inspector with `ports_required`).
    if !INSPECTOR.on_ports(&cx.hints) {
        return Probe::NotForUs;
    }
    if cx.hints.multicast {
        return Probe::NotForUs;
    }
    let ok = if cx.hints.transport == TCP {
        rlpx_handshake(cx.data)
    } else {
        discovery_v4(cx.data)
    };
    if ok {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
