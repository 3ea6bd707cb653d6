//! H.323 call signalling (H.225.0 over TCP): a TPKT header (version 3, length equal to the
//! segment) carrying a Q.931 message (protocol discriminator 0x08, a call reference of at most
//! two bytes, a known message type); and RAS over UDP, whose messages carry H.225.0's protocol
//! identifier (OID 0.0.8.2250.0.x, `06 00 08 91 4a 00`) within their first bytes.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP, UDP};

/// nDPI's H323 label.
pub static LABEL: Label = label("H323", "VoIP");

/// The H.323 inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "h323",
    transports: TCP | UDP,
    ports: &[1720, 1719],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    if cx.hints.transport == UDP {
        const OID: &[u8] = &[0x06, 0x00, 0x08, 0x91, 0x4a, 0x00];
        let ras = d.first().is_some_and(|&c| c >> 2 <= 0x2b)
            && (2..=6).any(|at| d.get(at..at + OID.len()) == Some(OID));
        return if ras {
            Probe::Certain(&LABEL)
        } else {
            Probe::NotForUs
        };
    }
    let (Some(&[3, 0]), Some(l), Some(&0x08), Some(&crl)) =
        (d.get(..2), d.get(2..4), d.get(4), d.get(5))
    else {
        return Probe::NotForUs;
    };
    let len = usize::from(u16::from_be_bytes([l[0], l[1]]));
    let crl = usize::from(crl);
    // Alerting, call proceeding, progress, setup, connect, release complete, facility,
    // notify, status, information...
    let msg_ok = d.get(6 + crl).is_some_and(|&m| {
        matches!(m, 0x01 | 0x02 | 0x03 | 0x05 | 0x07 | 0x0f | 0x5a | 0x62 | 0x6e | 0x7d | 0x7b)
    });
    if len == d.len() && crl <= 2 && msg_ok {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
