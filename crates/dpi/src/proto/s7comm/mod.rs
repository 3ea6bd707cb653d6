//! S7comm (Siemens S7 over ISO-on-TCP, port 102): a TPKT header (version 3, length equal to
//! the segment) carrying either COTP data (0xf0) with the S7 protocol id 0x32 and a known PDU
//! type, or a COTP connection request/confirm whose destination TSAP names an S7 connection
//! type (PG, OP or S7 basic: 1, 2 or 3).

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP};

/// nDPI's S7Comm label.
pub static LABEL: Label = label("S7Comm", "IoT-Scada");

/// The S7comm inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "s7comm",
    transports: TCP,
    ports: &[102],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let (Some(&[3, 0]), Some(l), Some(&li), Some(&code)) = (d.get(..2), d.get(2..4), d.get(4), d.get(5))
    else {
        return Probe::NotForUs;
    };
    let len = usize::from(u16::from_be_bytes([l[0], l[1]]));
    if len != d.len() {
        return Probe::NotForUs;
    }
    let ok = match code {
        // Data: li 2, then the S7 header (0x32, ROSCTR job/ack/ack-data/userdata).
        0xf0 => li == 2 && d.get(7) == Some(&0x32) && matches!(d.get(8), Some(1 | 2 | 3 | 7)),
        // Connection request/confirm: parameters after 7 bytes; look for the destination TSAP.
        0xe0 | 0xd0 => {
            let end = (5 + usize::from(li)).min(d.len());
            let params = d.get(11..end).unwrap_or(&[]);
            let mut at = 0;
            let mut found = false;
            for _ in 0..8 {
                let (Some(&code), Some(&plen)) = (params.get(at), params.get(at + 1)) else {
                    break;
                };
                if code == 0xc2 && plen == 2 {
                    found = params.get(at + 2).is_some_and(|t| (1..=3).contains(t));
                }
                at += 2 + usize::from(plen);
            }
            found
        }
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
