//! Java RMI's wire protocol, JRMP (nDPI's JRMI): a client opens a connection to a registry
//! (TCP 1099) or an exported object with the header `JRMI`, a 16-bit version and a protocol
//! byte: StreamProtocol 0x4b, SingleOpProtocol 0x4c or MultiplexProtocol 0x4d (Java RMI
//! Specification, chapter 10 "RMI Wire Protocol", §10.2.1 "Format of an Output Stream"). With
//! the stream and multiplex protocols the header travels alone and the server answers with a
//! ProtocolAck (0x4e); with SingleOpProtocol a message follows at once: Call 0x50, Ping 0x52 or
//! DgcAck 0x54.
//!
//! Checked: the magic, version 1 or 2 (JDK 17 sends 2), a known protocol byte, and either the
//! seven-byte header alone (stream, multiplex) or a known message byte after it (single-op).

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP};

/// nDPI's JRMI label.
pub static LABEL: Label = label("JRMI", "RPC");

/// The JRMI inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "jrmi",
    transports: TCP,
    ports: &[1099],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let (Some(b"JRMI"), Some(&[0, version]), Some(&proto)) = (d.get(..4), d.get(4..6), d.get(6))
    else {
        return Probe::NotForUs;
    };
    if !(1..=2).contains(&version) {
        return Probe::NotForUs;
    }
    let ok = match proto {
        0x4b | 0x4d => d.len() == 7,
        0x4c => matches!(d.get(7), Some(0x50 | 0x52 | 0x54)),
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
