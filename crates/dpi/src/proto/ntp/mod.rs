//! NTP (RFC 5905) on port 123: a 48-byte header (with optional MAC) of version 1-4 and a
//! client, server, symmetric or broadcast mode; control (mode 6) and private (mode 7) messages.
//! The port is required *and* the header must fit: the structure alone is too weak a test.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, UDP};

/// nDPI's NTP label.
pub static LABEL: Label = label("NTP", "System");

/// The NTP inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "ntp",
    transports: UDP,
    ports: &[123],
    labels: &[&LABEL],
    min_udp: 8,
    ports_required: true,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let Some(&b0) = d.first() else {
        return Probe::NotForUs;
    };
    let (ver, mode) = ((b0 >> 3) & 7, b0 & 7);
    let ok = cx.hints.port(123)
        && (1..=4).contains(&ver)
        && match mode {
            1..=5 => matches!(d.len(), 48 | 52 | 60 | 68 | 72),
            6 | 7 => d.len() >= 8 && d.len() <= 1024,
            _ => false,
        };
    if ok {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
