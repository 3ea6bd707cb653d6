//! RDP over TCP: a TPKT header (version 3, length equal to the segment) carrying an X.224
//! connection request (0xe0) or confirm (0xd0) whose length indicator matches and whose user
//! data is RDP's (a `Cookie:` or routing token, or an RDP negotiation request, response or
//! failure of 8 bytes); other ISO transports (S7comm's TSAPs) are not RDP. Over UDP, the
//! RDP-UDP SYN datagram (sequence `ffffffff`, then the receive window sizes and SYN flag).

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP, UDP};

/// nDPI's RDP label.
pub static LABEL: Label = label("RDP", "RemoteAccess");

/// The RDP inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "rdp",
    transports: TCP | UDP,
    ports: &[3389],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let ok = if cx.hints.transport == TCP {
        let (Some(&[3, 0]), Some(l), Some(&li), Some(&code)) =
            (d.get(..2), d.get(2..4), d.get(4), d.get(5))
        else {
            return Probe::NotForUs;
        };
        let len = usize::from(u16::from_be_bytes([l[0], l[1]]));
        let user = d.get(11..).unwrap_or(&[]);
        let rdp_data = user.starts_with(b"Cookie: ")
            || (user.len() == 8 && matches!(user.first(), Some(1..=3)) && user.get(2..4) == Some(&[8, 0]));
        len == d.len() && usize::from(li) + 5 == len && matches!(code, 0xe0 | 0xd0) && rdp_data
    } else {
        // RDP-UDP SYN: snSourceAck -1, receive window, flags with SYN (0x0001) set, then
        // the SYN data (initial sequence number, MTUs of 1232 = 0x04d0).
        d.len() >= 1232
            && d.starts_with(&[0xff, 0xff, 0xff, 0xff])
            && d.get(6..8).is_some_and(|f| f[1] & 1 == 1)
            && d.get(12..16) == Some(&[0x04, 0xd0, 0x04, 0xd0])
    };
    if ok {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
