//! SoftEther VPN: the UDP acceleration answer `IP=a.b.c.d,PORT=n`, or a PACK (the SoftEther
//! serialisation: an element count, then a name length counting a NUL, a printable name, a
//! value type 0-4) as the first message of a flow.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP, UDP};

/// nDPI's Softether label.
pub static LABEL: Label = label("Softether", "VPN");

/// The SoftEther inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "softether",
    transports: UDP | TCP,
    ports: &[5004, 5555, 992],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn be32(d: &[u8], at: usize) -> Option<usize> {
    d.get(at..at + 4)
        .map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]) as usize)
}

fn is_pack(d: &[u8]) -> bool {
    let (Some(count), Some(nlen)) = (be32(d, 0), be32(d, 4)) else {
        return false;
    };
    let name = d.get(8..8 + nlen.saturating_sub(1));
    let ty = be32(d, 8 + nlen.saturating_sub(1));
    (1..=64).contains(&count)
        && (2..=64).contains(&nlen)
        && name.is_some_and(|n| n.iter().all(|&b| b.is_ascii_alphanumeric() || b == b'_'))
        && ty.is_some_and(|t| t <= 4)
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let answer = d.starts_with(b"IP=") && crate::util::contains(d, b",PORT=");
    if answer || (cx.hints.nth == 0 && is_pack(d)) {
        Probe::Certain(&LABEL)
    } else if cx.hints.transport == UDP && d == b"A" {
        // The client's one-byte probe; the answer decides.
        Probe::Unsure
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;

