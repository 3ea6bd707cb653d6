//! S7comm (Siemens S7 over ISO-on-TCP, port 102): a TPKT header (version 3, length equal to
//! the segment) carrying either COTP data (0xf0) with the S7 protocol id 0x32 and a known PDU
//! type, or a COTP connection request/confirm whose destination TSAP names an S7 connection
//! type (PG, OP or S7 basic: 1, 2 or 3). S7CommPlus (S7-1200/1500) has the protocol id 0x72,
//! a version (1-3) and a data length that fits the segment; its connection request names a
//! TSAP such as `SIMATIC-ROOT-HMI`, so on port 102 another connection request waits for the
//! data.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP};

/// nDPI's S7Comm label.
pub static LABEL: Label = label("S7Comm", "IoT-Scada");

/// nDPI's S7CommPlus label.
pub static PLUS: Label = label("S7CommPlus", "IoT-Scada");

/// The S7comm inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "s7comm",
    transports: TCP,
    ports: &[102],
    labels: &[&LABEL, &PLUS],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let s7_port = cx.hints.port(102);
    crate::util::tpkt_units(cx.data, |unit| unit_probe(unit, s7_port))
}

/// One TPKT unit `d` (header included, at least 7 bytes); `s7_port`: either end is port 102.
fn unit_probe(d: &[u8], s7_port: bool) -> Probe {
    let (Some(&li), Some(&code)) = (d.get(4), d.get(5)) else {
        return Probe::NotForUs;
    };
    match code {
        // Data: li 2, then the S7 header (0x32, ROSCTR job/ack/ack-data/userdata), or the
        // S7CommPlus header (0x72, version, data length).
        0xf0 if li == 2 => match d.get(7) {
            Some(0x32) => Probe::certain_if(matches!(d.get(8), Some(1 | 2 | 3 | 7)), &LABEL),
            Some(0x72) => {
                let fits = d.get(9..11).is_some_and(|l| {
                    11 + usize::from(u16::from_be_bytes([l[0], l[1]])) <= d.len()
                });
                Probe::certain_if(matches!(d.get(8), Some(1..=3)) && fits, &PLUS)
            }
            _ => Probe::NotForUs,
        },
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
            if found {
                Probe::Certain(&LABEL)
            } else if s7_port {
                // Another TSAP on the S7 port (S7CommPlus): the first data PDU decides.
                Probe::Unsure
            } else {
                Probe::NotForUs
            }
        }
        _ => Probe::NotForUs,
    }
}

#[cfg(test)]
mod tests;
