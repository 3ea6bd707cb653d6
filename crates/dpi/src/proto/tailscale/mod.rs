//! Tailscale's peer discovery ("disco") messages, sent over the same UDP socket as its
//! WireGuard traffic (port 41641 by default). The format is the one the Tailscale client
//! documents in its source (`disco/disco.go`, BSD-licensed): the 6-byte magic `TS💬`
//! (54 53 F0 9F 92 AC), the sender's 32-byte disco public key, a 24-byte nonce, then a
//! NaCl box: a 16-byte authenticator over a message of at least a type and a version byte.
//!
//! Checked: the magic and a datagram long enough for the key, nonce, authenticator and message
//! header (80 bytes). The magic is six bytes and needs no port. (WireGuard packets of the same
//! flow are named by the WireGuard inspector if they come first.)

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, UDP};

/// nDPI's Tailscale label.
pub static LABEL: Label = label("Tailscale", "VPN");

/// The Tailscale disco inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "tailscale",
    transports: UDP,
    ports: &[41641],
    labels: &[&LABEL],
    min_udp: 80,
    ports_required: false,
    probe,
};

const MAGIC: &[u8] = b"TS\xf0\x9f\x92\xac";

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    if d.starts_with(MAGIC) && d.len() >= MAGIC.len() + 32 + 24 + 16 + 2 {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
