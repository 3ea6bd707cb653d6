//! RTP and RTCP (RFC 3550): version 2 headers whose CSRC list and padding fit the packet, with
//! a media payload type; over TCP framed by a two-byte length (RFC 4571). A single header is
//! too weak a test (two bits of version), so RTP needs three packets in one direction that all
//! parse; RTCP needs a compound packet whose lengths add up exactly.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP, UDP};

/// nDPI's RTP label.
pub static LABEL: Label = label("RTP", "Media");
/// nDPI's RTCP label.
pub static RTCP: Label = label("RTCP", "VoIP");

/// nDPI's label for the media of a WhatsApp call: RTP after STUN that only WhatsApp sends.
/// nDPI names RTP `SRTP` when it knows the calling application (every one it knows encrypts
/// its media); plain RTP keeps `RTP` (or `STUN/RTP` after STUN). Given by the STUN inspector,
/// which sees the flow first.
pub static SRTP_WHATSAPP: Label = Label {
    app: "WhatsAppCall",
    master: "SRTP",
    category: "VoIP",
};

/// The RTP/RTCP inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "rtp",
    transports: UDP | TCP,
    ports: &[],
    labels: &[&LABEL, &RTCP],
    min_udp: 0,
    ports_required: false,
    probe,
};

/// Payload types of audio and video (RFC 3551) and the dynamic range.
fn media_type(pt: u8) -> bool {
    matches!(pt, 0..=34 | 96..=127) && !matches!(pt, 1 | 2 | 19..=24 | 27 | 29 | 30)
}

/// Is `d` one RTP packet?
pub fn is_rtp(d: &[u8]) -> bool {
    let (Some(&b0), Some(&b1)) = (d.first(), d.get(1)) else {
        return false;
    };
    if b0 >> 6 != 2 || !media_type(b1 & 0x7f) {
        return false;
    }
    let mut head = 12 + 4 * usize::from(b0 & 0x0f);
    if b0 & 0x10 != 0 {
        // Header extension: profile, length in words.
        let Some(l) = d.get(head + 2..head + 4) else {
            return false;
        };
        head += 4 + 4 * usize::from(u16::from_be_bytes([l[0], l[1]]));
    }
    let pad = if b0 & 0x20 != 0 {
        d.last().map_or(0, |&p| usize::from(p))
    } else {
        0
    };
    head + pad < d.len() || (head + pad == d.len() && pad > 0) || head == d.len()
}

/// Is `d` a compound RTCP packet (a sender or receiver report first, lengths adding up)?
pub fn is_rtcp(d: &[u8]) -> bool {
    let mut at = 0;
    // A compound packet holds a handful of reports.
    for i in 0..16 {
        if at == d.len() && i > 0 {
            return true;
        }
        let (Some(&b0), Some(&pt), Some(l)) = (d.get(at), d.get(at + 1), d.get(at + 2..at + 4))
        else {
            return false;
        };
        let first_ok = i > 0 || matches!(pt, 200 | 201);
        if b0 >> 6 != 2 || !(200..=207).contains(&pt) || !first_ok {
            return false;
        }
        at += 4 + 4 * usize::from(u16::from_be_bytes([l[0], l[1]]));
    }
    false
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    let mut d = cx.data;
    if cx.hints.transport == TCP {
        // RFC 4571: each packet is preceded by its length.
        let Some(l) = d.get(..2).map(|l| usize::from(u16::from_be_bytes([l[0], l[1]]))) else {
            return Probe::NotForUs;
        };
        match d.get(2..2 + l) {
            Some(p) if l >= 12 => d = p,
            _ => return Probe::NotForUs,
        }
    }
    if is_rtcp(d) {
        return Probe::Certain(&RTCP);
    }
    if !is_rtp(d) {
        return Probe::NotForUs;
    }
    if cx.hints.nth >= 2 {
        Probe::Certain(&LABEL)
    } else {
        Probe::Unsure
    }
}

#[cfg(test)]
mod tests;
