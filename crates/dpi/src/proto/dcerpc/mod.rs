//! DCE/RPC: connectionless (UDP) packets of version 4, a packet type 0-10, a data
//! representation whose integer and character bytes are valid, and a fragment length at byte
//! 74 equal to the body after the 80-byte header; connection-oriented (TCP) PDUs of version
//! 5.0 whose fragment length covers the segment.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP, UDP};

/// nDPI's DCERPC label.
pub static LABEL: Label = label("DCERPC", "Network");

/// The DCE/RPC inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "dcerpc",
    transports: UDP | TCP,
    ports: &[135, 34964],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let ok = if cx.hints.transport == UDP {
        let (Some(&4), Some(&ptype), Some(&drep)) = (d.first(), d.get(1), d.get(4)) else {
            return Probe::NotForUs;
        };
        let little = drep & 0x10 != 0;
        let frag = d.get(74..76).map(|f| {
            usize::from(if little {
                u16::from_le_bytes([f[0], f[1]])
            } else {
                u16::from_be_bytes([f[0], f[1]])
            })
        });
        ptype <= 10 && drep & 0xee == 0 && frag.is_some_and(|f| f + 80 == d.len())
    } else {
        // Version 5.0, a PDU type, the fragment length (in the data representation's order).
        let (Some(&[5, 0]), Some(&ptype), Some(&drep), Some(f)) =
            (d.get(..2), d.get(2), d.get(4), d.get(8..10))
        else {
            return Probe::NotForUs;
        };
        let frag = usize::from(if drep & 0x10 != 0 {
            u16::from_le_bytes([f[0], f[1]])
        } else {
            u16::from_be_bytes([f[0], f[1]])
        });
        ptype <= 20 && drep & 0xee == 0 && frag >= 16 && frag >= d.len()
    };
    if ok {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
