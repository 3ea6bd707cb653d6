//! sFlow version 5 datagrams: version, agent address type (IPv4 or IPv6) and address, sub
//! agent, sequence, uptime, a sample count, then that many samples (format, length) filling
//! the datagram exactly.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, UDP};

/// nDPI's sFlow label.
pub static LABEL: Label = label("sFlow", "Network");

/// The sFlow inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "sflow",
    transports: UDP,
    ports: &[6343],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn be32(d: &[u8], at: usize) -> Option<usize> {
    d.get(at..at + 4)
        .map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]) as usize)
}

fn is_sflow(d: &[u8]) -> Option<bool> {
    if be32(d, 0)? != 5 {
        return Some(false);
    }
    let at = match be32(d, 4)? {
        1 => 12,
        2 => 24,
        _ => return Some(false),
    };
    let n = be32(d, at + 12)?;
    if n == 0 || n > 64 {
        return Some(false);
    }
    let mut p = at + 16;
    for _ in 0..n {
        let len = be32(d, p + 4)?;
        p = p.checked_add(8 + len)?;
    }
    Some(p == d.len())
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    if is_sflow(cx.data) == Some(true) {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
