//! collectd's binary network protocol: a datagram of parts, each a 16-bit type (host, time,
//! plugin, type, values, interval, message, severity, signature, encryption) and a 16-bit
//! length of at least 4, filling the datagram exactly, each body the shape its type has.

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
        if len < 4 || !d.get(at + 4..at + len).is_some_and(|body| part_fits(ty, body)) {
            return Probe::NotForUs;
        }
        at += len;
    }
    Probe::NotForUs
}

/// A part's body as collectd's binary protocol writes it for its type: strings (host, plugin,
/// plugin and type instances, type, message) NUL-terminated text with no other NUL (an empty
/// instance is the NUL alone, collectd.pcap); numbers (time, interval and their
/// high-resolution forms, severity) 8 bytes; values a 16-bit count, that many type bytes and
/// that many 8-byte values; a signature (HMAC-SHA-256 and a user name) at least 32 bytes; an
/// encrypted part anything. (A PTP Sync message, 44 bytes, reads as one "plugin" part of 44
/// bytes: its interior NULs are no string.)
fn part_fits(ty: u16, body: &[u8]) -> bool {
    match ty {
        0 | 2..=5 | 0x0100 => {
            body.split_last()
                .is_some_and(|(&last, text)| last == 0 && !text.contains(&0))
        }
        1 | 7..=9 | 0x0101 => body.len() == 8,
        6 => body.get(..2).is_some_and(|n| {
            body.len() == 2 + 9 * usize::from(u16::from_be_bytes([n[0], n[1]]))
        }),
        0x0200 => body.len() >= 32,
        0x0210 => true,
        _ => false,
    }
}

#[cfg(test)]
mod tests;
