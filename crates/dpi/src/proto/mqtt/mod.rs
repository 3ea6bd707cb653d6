//! MQTT: the client's CONNECT packet (type 1, flags 0), a remaining length (variable-length
//! integer) equal to the rest of the segment, and the protocol name `MQTT` (3.1.1, 5.0) or
//! `MQIsdp` (3.1) with a matching level.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP};

/// nDPI's MQTT label.
pub static LABEL: Label = label("MQTT", "RPC");

/// The MQTT inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "mqtt",
    transports: TCP,
    ports: &[1883, 8883],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    if d.first() != Some(&0x10) {
        return Probe::NotForUs;
    }
    let mut len = 0usize;
    let mut at = 1;
    for shift in 0..4 {
        let Some(&b) = d.get(at) else {
            return Probe::NotForUs;
        };
        len |= usize::from(b & 0x7f) << (7 * shift);
        at += 1;
        if b & 0x80 == 0 {
            break;
        }
    }
    let rest = d.get(at..).unwrap_or(&[]);
    let name_ok = (rest.starts_with(b"\x00\x04MQTT") && matches!(rest.get(6), Some(4 | 5)))
        || (rest.starts_with(b"\x00\x06MQIsdp") && rest.get(8) == Some(&3));
    if name_ok && len == rest.len() {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
