//! PTPv2 (IEEE 1588) over UDP 319/320: version 2, a known message type, a message length of at
//! least 34 that fits the datagram.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, UDP};

/// nDPI's PTPv2 label.
pub static LABEL: Label = label("PTPv2", "System");

/// The PTPv2 inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "ptpv2",
    transports: UDP,
    ports: &[319, 320],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let (Some(&t), Some(&v), Some(l)) = (d.first(), d.get(1), d.get(2..4)) else {
        return Probe::NotForUs;
    };
    let len = usize::from(u16::from_be_bytes([l[0], l[1]]));
    let ok = (cx.hints.port(319) || cx.hints.port(320))
        && v & 0x0f == 2
        // minorVersionPTP 0 (1588-2008) or 1 (1588-2019)
        && v >> 4 <= 1
        && length_fits(t & 0x0f, len)
        && len <= d.len();
    if ok {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

/// IEEE 1588-2008 §13.3-13.13: the 34-byte header and each message type's body, a fixed
/// length for the event and general messages, at least the fixed part for those that carry
/// TLVs (Announce, Signaling, Management). Without it any datagram on udp/319-320 with version
/// 2 in its second byte was PTP (with the corpus's ports moved there: DNSCrypt, RADIUS,
/// Kerberos and RTP flows).
fn length_fits(ty: u8, len: usize) -> bool {
    match ty {
        // Sync, Delay_Req, Follow_Up
        0 | 1 | 8 => len == 44,
        // Pdelay_Req, Pdelay_Resp, Delay_Resp, Pdelay_Resp_Follow_Up
        2 | 3 | 9 | 0xa => len == 54,
        0xb => len >= 64,
        0xc => len >= 44,
        0xd => len >= 48,
        _ => false,
    }
}

#[cfg(test)]
mod tests;
