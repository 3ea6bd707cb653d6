//! HiSLIP, the High-Speed LAN Instrument Protocol for test and measurement instruments (IVI
//! Foundation IVI-6.1, TCP port 4880). Its message format: every message starts with a
//! 16-byte header, the prologue `HS`, a message type, a control code, a 32-bit message
//! parameter and a 64-bit big-endian payload length, then the payload.
//!
//! Checked: the prologue, and a message that opens a channel (Initialize 0, InitializeResponse
//! 1, AsyncInitialize 17, AsyncInitializeResponse 18, the connection set-up) whose payload
//! length ends exactly at the end of the segment (the sub-address is at most 256 bytes). Other
//! message types (0-26, or vendor specific from 128) with a payload length that covers the
//! segment or is followed by another `HS` header are only accepted on port 4880.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP};

/// nDPI's HiSLIP label.
pub static LABEL: Label = label("HiSLIP", "IoT-Scada");

/// The HiSLIP inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "hislip",
    transports: TCP,
    ports: &[4880],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let (Some(b"HS"), Some(&mtype), Some(l)) = (d.get(..2), d.get(2), d.get(8..16)) else {
        return Probe::NotForUs;
    };
    let len = u64::from_be_bytes([l[0], l[1], l[2], l[3], l[4], l[5], l[6], l[7]]);
    let exact = len.checked_add(16) == Some(d.len() as u64);
    let ok = if matches!(mtype, 0 | 1 | 17 | 18) {
        exact && len <= 256
    } else {
        let known = mtype <= 26 || mtype >= 128;
        let end = usize::try_from(len).ok().and_then(|n| n.checked_add(16));
        let fits = match end {
            Some(e) if e < d.len() => d.get(e..e + 2) == Some(b"HS"),
            Some(_) => true,
            None => false,
        };
        cx.hints.port(4880) && known && fits && len < 1 << 32
    };
    if ok {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
