//! AMQP: the protocol header (`AMQP` and a version: 0-9-1, 0-10, 1.0 or its SASL/TLS
//! variants), or an AMQP 0-9-1 frame (type, channel, 32-bit size) whose frame-end byte 0xce
//! sits right after the payload.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP};

/// nDPI's AMQP label.
pub static LABEL: Label = label("AMQP", "RPC");

/// The AMQP inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "amqp",
    transports: TCP,
    ports: &[5672],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let header = d.len() == 8
        && d.starts_with(b"AMQP")
        && matches!(d.get(4..), Some(&[0, 0, 9, 1] | &[0, 0, 9, 0] | &[1, 1, 0, 10] | &[0, 1, 0, 0] | &[3, 1, 0, 0] | &[2, 1, 0, 0]));
    let frame = match (d.first(), d.get(3..7)) {
        (Some(1 | 2 | 3 | 8), Some(s)) => {
            let size = u32::from_be_bytes([s[0], s[1], s[2], s[3]]) as usize;
            size.checked_add(7).and_then(|e| d.get(e)) == Some(&0xce)
        }
        _ => false,
    };
    if header || frame {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
