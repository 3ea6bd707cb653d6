//! WireGuard: a message type (1-4) and three zero bytes; handshake initiation, response and
//! cookie reply have fixed sizes (148, 92, 64 bytes); transport data (type 4) is at least 32
//! bytes in 16-byte steps and needs three such packets in one direction to count.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, UDP};

/// nDPI's WireGuard label.
pub static LABEL: Label = label("WireGuard", "VPN");

/// The WireGuard inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "wireguard",
    transports: UDP,
    ports: &[51820],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let (Some(&t), Some(&[0, 0, 0])) = (d.first(), d.get(1..4)) else {
        return Probe::NotForUs;
    };
    match (t, d.len()) {
        (1, 148) | (2, 92) | (3, 64) => Probe::Certain(&LABEL),
        (4, n) if n >= 32 && n % 16 == 0 => {
            if cx.hints.nth >= 2 {
                Probe::Certain(&LABEL)
            } else {
                Probe::Unsure
            }
        }
        _ => Probe::NotForUs,
    }
}

#[cfg(test)]
mod tests;
