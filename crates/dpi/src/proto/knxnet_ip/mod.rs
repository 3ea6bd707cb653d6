//! KNXnet/IP (KNX Standard 03.08.02, ISO 22510) over UDP and TCP, usually port 3671 (and
//! multicast 224.0.23.12 for routing): every frame opens with a 6-byte header, header length
//! 0x06, protocol version 0x10, a service type from a known family, and a total length counting
//! the header. A datagram is one frame; a TCP segment may hold several back to back, which must
//! each have a valid header (the last may run past the segment).

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP, UDP};

/// nDPI's KNXnet_IP label.
pub static LABEL: Label = label("KNXnet_IP", "IoT-Scada");

/// The KNXnet/IP inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "knxnet_ip",
    transports: TCP | UDP,
    ports: &[3671],
    labels: &[&LABEL],
    min_udp: 10,
    ports_required: false,
    probe,
};

/// Shortest frame: a header and a 4-byte connection header (a tunnelling acknowledgement).
const MIN_FRAME: usize = 10;

fn probe(cx: &mut Cx<'_>) -> Probe {
    Probe::certain_if(is_knx(cx.data, cx.hints.transport == TCP), &LABEL)
}

/// Service type identifiers of the standard's families (03.08.01 section 5.3): core 0x0201-
/// 0x020C, device management 0x0310-0x0311, tunnelling 0x0420-0x0425, routing 0x0530-0x0533,
/// remote diagnosis and configuration 0x0740-0x0743, security 0x0950-0x0955.
fn known_service(s: u16) -> bool {
    matches!(
        s,
        0x0201..=0x020c
            | 0x0310..=0x0311
            | 0x0420..=0x0425
            | 0x0530..=0x0533
            | 0x0740..=0x0743
            | 0x0950..=0x0955
    )
}

/// The total length of a valid frame header at the start of `d`.
fn frame(d: &[u8]) -> Option<usize> {
    let (Some(&[0x06, 0x10]), Some(s), Some(l)) = (d.get(..2), d.get(2..4), d.get(4..6)) else {
        return None;
    };
    let total = usize::from(u16::from_be_bytes([l[0], l[1]]));
    (known_service(u16::from_be_bytes([s[0], s[1]])) && total >= MIN_FRAME).then_some(total)
}

fn is_knx(d: &[u8], tcp: bool) -> bool {
    let Some(first) = frame(d) else {
        return false;
    };
    if !tcp {
        return first == d.len();
    }
    let mut at = 0;
    let mut len = first;
    // Each frame is at least 10 bytes, so a 16 KiB segment holds fewer than 2000; the cap is a
    // guard, past which the frames seen so far decide.
    for _ in 0..64 {
        at += len;
        if at >= d.len() {
            return true;
        }
        match d.get(at..).and_then(frame) {
            Some(n) => len = n,
            None => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests;
