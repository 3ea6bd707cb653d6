//! EtherNet/IP encapsulation (TCP/UDP 44818): a 24-byte little-endian header with a known
//! command (list services/identity/interfaces, register/unregister session, send RR/unit
//! data), a length equal to the rest of the segment and zero options.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP, UDP};

/// nDPI's EthernetIP label.
pub static LABEL: Label = label("EthernetIP", "Network");

/// The EtherNet/IP inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "ethernetip",
    transports: TCP | UDP,
    ports: &[44818, 2222],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let (Some(c), Some(l), Some(opts)) = (d.get(..2), d.get(2..4), d.get(20..24)) else {
        return Probe::NotForUs;
    };
    let cmd = u16::from_le_bytes([c[0], c[1]]);
    let len = usize::from(u16::from_le_bytes([l[0], l[1]]));
    let ok = matches!(cmd, 0x0004 | 0x0063 | 0x0064 | 0x0065 | 0x0066 | 0x006f | 0x0070)
        && len + 24 == d.len()
        && opts == [0, 0, 0, 0];
    if ok {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
