//! Cisco's Hot Standby Router Protocol (RFC 2281 for version 0; version 2 by Cisco's guide):
//! UDP from and to the same port, to a multicast group — 1985 with IPv4 (224.0.0.2 for v0,
//! 224.0.0.102 for v2), 2029 with IPv6 (ff02::66). Version 0: a 20-byte header with version 0,
//! an op code 0-2, a known state and a zero reserved byte. Version 2: type-length-value blocks
//! (types 1-4) that tile the datagram; the group state TLV (type 1) carries version 2 and the
//! address family (4 or 6).

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, UDP};

/// nDPI's HSRP label.
pub static LABEL: Label = label("HSRP", "Network");

/// The HSRP inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "hsrp",
    transports: UDP,
    ports: &[1985, 2029],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: true,
    probe,
};

/// Version 0 (RFC 2281 section 5): version, op code (hello, coup, resign), state (initial,
/// learn, listen, speak, standby, active), hello time, hold time, priority, group, reserved.
fn is_v0(d: &[u8]) -> bool {
    d.len() >= 20
        && d[0] == 0
        && d[1] <= 2
        && matches!(d[2], 0 | 1 | 2 | 4 | 8 | 16)
        && d[7] == 0
        && password(&d[8..16])
}

/// RFC 2281 §5's authentication data: a clear-text password of up to 8 characters, NUL-padded
/// ("cisco" by default). An mDNS query (ID 0, flags 0, a question) has the header's first
/// bytes right but not this: with the corpus's ports moved to 1985, 21 mDNS flows were HSRP.
fn password(a: &[u8]) -> bool {
    let n = a.iter().position(|&b| b == 0).unwrap_or(a.len());
    a[..n].iter().all(|b| b.is_ascii_graphic()) && a[n..].iter().all(|&b| b == 0)
}

/// Version 2: TLVs of types 1-4 tiling the datagram (at most 8); a group state TLV says version
/// 2 and IPv4 or IPv6.
fn is_v2(d: &[u8]) -> bool {
    let mut rest = d;
    for _ in 0..8 {
        let (Some(&t), Some(&l)) = (rest.first(), rest.get(1)) else {
            return false;
        };
        let Some(value) = rest.get(2..2 + usize::from(l)) else {
            return false;
        };
        if !(1..=4).contains(&t) || (t == 1 && (value.first() != Some(&2) || !matches!(value.get(3), Some(4 | 6)))) {
            return false;
        }
        rest = &rest[2 + usize::from(l)..];
        if rest.is_empty() {
            return true;
        }
    }
    false
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    let h = &cx.hints;
    let same_port = h.server_port == h.client_port && matches!(h.server_port, 1985 | 2029);
    let ok = same_port && h.multicast && (is_v2(cx.data) || (h.server_port == 1985 && is_v0(cx.data)));
    Probe::certain_if(ok, &LABEL)
}

#[cfg(test)]
mod tests;
