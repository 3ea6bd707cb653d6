//! SOME/IP (automotive middleware): message id, a length equal to the rest after 8 bytes,
//! request id, protocol version 1, an interface version, a known message type (request,
//! notification, response, error, and their TP variants) and a return code below 0x60.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP, UDP};

/// nDPI's SOMEIP label.
pub static LABEL: Label = label("SOMEIP", "RPC");

/// The SOME/IP inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "someip",
    transports: UDP | TCP,
    ports: &[30490, 30491, 30501],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let (Some(l), Some(&1), Some(&ty), Some(&rc)) = (d.get(4..8), d.get(12), d.get(14), d.get(15))
    else {
        return Probe::NotForUs;
    };
    let len = u32::from_be_bytes([l[0], l[1], l[2], l[3]]) as usize;
    let ok = len >= 8
        && len.checked_add(8) == Some(d.len())
        && matches!(ty, 0x00 | 0x01 | 0x02 | 0x80 | 0x81 | 0x20 | 0x21 | 0x22 | 0xa0 | 0xa1)
        && rc < 0x60;
    if ok {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
