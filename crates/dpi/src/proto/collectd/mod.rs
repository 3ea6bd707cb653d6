//! collectd's binary network protocol: a datagram of parts, each a 16-bit type (host, time,
//! plugin, type, values, interval, message, severity, signature, encryption) and a 16-bit
//! length of at least 4, filling the datagram exactly.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, UDP};

/// nDPI's collectd label.
pub static LABEL: Label = label("collectd", "System");

/// The collectd inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "collectd",
    transports: UDP,
    ports: &[25826],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let mut at = 0;
    for _ in 0..256 {
        if at == d.len() {
            return if at >= 8 {
                Probe::Certain(&LABEL)
            } else {
                Probe::NotForUs
            };
        }
        let (Some(t), Some(l)) = (d.get(at..at + 2), d.get(at + 2..at + 4)) else {
            return Probe::NotForUs;
        };
        let ty = u16::from_be_bytes([t[0], t[1]]);
        let len = usize::from(u16::from_be_bytes([l[0], l[1]]));
        if !matches!(ty, 0..=9 | 0x0100 | 0x0101 | 0x0200 | 0x0210) || len < 4 {
            return Probe::NotForUs;
        }
        at += len;
    }
    Probe::NotForUs
}

#[cfg(test)]
mod tests;
