//! DHCPv6 (RFC 8415) on UDP 546/547: a message type (1-13), a transaction id, and options
//! (code, length) that end exactly at the end of the datagram.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, UDP};

/// nDPI's DHCPV6 label.
pub static LABEL: Label = label("DHCPV6", "Network");

/// The DHCPv6 inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "dhcpv6",
    transports: UDP,
    ports: &[546, 547],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn options_fit(d: &[u8]) -> bool {
    let mut at = 4;
    for _ in 0..64 {
        if at == d.len() {
            return at > 4;
        }
        let Some(l) = d.get(at + 2..at + 4) else {
            return false;
        };
        at += 4 + usize::from(u16::from_be_bytes([l[0], l[1]]));
    }
    false
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let ok = (cx.hints.port(546) || cx.hints.port(547))
        && d.first().is_some_and(|t| (1..=13).contains(t))
        && options_fit(d);
    if ok {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
