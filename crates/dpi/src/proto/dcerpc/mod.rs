//! DCE/RPC: connectionless (UDP) packets of version 4, a packet type 0-10, a data
//! representation whose integer and character bytes are valid, and a fragment length at byte
//! 74 equal to the body after the 80-byte header; connection-oriented (TCP) PDUs of version
//! 5.0 whose fragment length covers the segment.
//!
//! PROFINET IO's acyclic services (IEC 61158-6-10, "PNIO" RPC interfaces) run over
//! connectionless DCE/RPC on UDP (port 34964 for the endpoint mapper, then any): a CL packet
//! whose interface UUID (bytes 24-39, in the data representation's byte order) is one of
//! DEA0000n-6C97-11D1-8271-00A02442DF7D, n = 1-4 (Device, Controller, Supervisor,
//! ParameterServer interfaces) is named `DCERPC.PROFINET_IO`, as nDPI names it.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP, UDP};

/// nDPI's DCERPC label.
pub static LABEL: Label = label("DCERPC", "Network");

/// nDPI's PROFINET_IO label, carried over DCE/RPC.
pub static PROFINET_IO: Label = Label {
    app: "PROFINET_IO",
    master: "DCERPC",
    category: "IoT-Scada",
};

/// The DCE/RPC inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "dcerpc",
    transports: UDP | TCP,
    ports: &[135, 34964],
    labels: &[&LABEL, &PROFINET_IO],
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
        let cl = ptype <= 10 && drep & 0xee == 0 && frag.is_some_and(|f| f + 80 == d.len());
        if cl && d.get(24..40).is_some_and(|u| pnio_interface(u, little)) {
            return Probe::Certain(&PROFINET_IO);
        }
        cl
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

/// True if `u` is a PROFINET IO interface UUID, DEA0000n-6C97-11D1-8271-00A02442DF7D with
/// n = 1-4, its first three fields little-endian if `little`.
fn pnio_interface(u: &[u8], little: bool) -> bool {
    let Some(u) = u.get(..16) else {
        return false;
    };
    // The first three fields (time_low, time_mid, time_hi) as big-endian bytes.
    let head: [u8; 8] = if little {
        [u[3], u[2], u[1], u[0], u[5], u[4], u[7], u[6]]
    } else {
        [u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7]]
    };
    let tail = [0x82, 0x71, 0x00, 0xa0, 0x24, 0x42, 0xdf, 0x7d];
    head[..3] == [0xde, 0xa0, 0x00]
        && (1..=4).contains(&head[3])
        && head[4..] == [0x6c, 0x97, 0x11, 0xd1]
        && u[8..] == tail
}

#[cfg(test)]
mod tests;
