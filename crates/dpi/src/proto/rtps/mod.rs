//! RTPS, the DDS interoperability wire protocol (OMG DDSI-RTPS 2.x), over UDP (ports from 7400
//! by the default port mapping of section 9.6.1.1). Section 8.3.3 / 9.4.4: a 20-byte header
//! (`RTPS`, protocol version major and minor, vendor id, 12-byte GUID prefix) then submessages,
//! each an id, a flags byte whose bit 0 gives the byte order of the rest, and a 16-bit
//! octetsToNextHeader (9.4.5.1); zero there means the submessage runs to the end of the message
//! (except PAD and INFO_TS, where it means empty).
//!
//! Checked: the magic, version 1.x or 2.x, and the submessage walk: ids defined by the
//! specification (9.4.5.1.1: 0x00-0x16 in use, the security ids 0x30-0x34) or vendor specific
//! (0x80 and up), lengths in the flagged byte order, ending exactly at the end of the datagram
//! (at most 64 submessages, at least one).

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, UDP};

/// nDPI's RTPS label.
pub static LABEL: Label = label("RTPS", "RPC");

/// The RTPS inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "rtps",
    transports: UDP,
    ports: &[7400, 7401, 7410, 7411],
    labels: &[&LABEL],
    min_udp: 24,
    ports_required: false,
    probe,
};

const PAD: u8 = 0x01;
const INFO_TS: u8 = 0x09;

fn known(id: u8) -> bool {
    matches!(id, 0x00 | 0x01 | 0x06..=0x09 | 0x0c..=0x0f | 0x12 | 0x13 | 0x15 | 0x16 | 0x30..=0x34)
        || id >= 0x80
}

fn submessages(d: &[u8]) -> bool {
    let mut at = 20;
    for n in 0..64 {
        if at == d.len() {
            return n > 0;
        }
        let Some(h) = d.get(at..at + 4) else {
            return false;
        };
        if !known(h[0]) {
            return false;
        }
        let len = if h[1] & 1 == 1 {
            u16::from_le_bytes([h[2], h[3]])
        } else {
            u16::from_be_bytes([h[2], h[3]])
        };
        if len == 0 && h[0] != PAD && h[0] != INFO_TS {
            return true; // runs to the end of the message
        }
        at += 4 + usize::from(len);
    }
    false
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let (Some(b"RTPS"), Some(&major), Some(&minor)) = (d.get(..4), d.get(4), d.get(5)) else {
        return Probe::NotForUs;
    };
    if (1..=2).contains(&major) && minor < 10 && submessages(d) {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
