//! RDP over TCP: a TPKT header (version 3, length equal to the segment) carrying an X.224
//! connection request (0xe0) or confirm (0xd0) whose length indicator matches and whose user
//! data is RDP's (a `Cookie:` or routing token, or an RDP negotiation request, response or
//! failure of 8 bytes); other ISO transports (S7comm's TSAPs) are not RDP. Over UDP, the
//! RDP-UDP SYN datagram (sequence `ffffffff`, then the receive window sizes and SYN flag).
//! RDP-UDP then runs TLS (or DTLS) inside its datagrams: the client's ClientHello, a few bytes
//! into one of its next datagrams, is read for its SNI and fingerprints, as tshark reads it
//! (rdp2.pcap frame 3).

use crate::proto::label;
use crate::{Cx, Dir, Inspector, Label, Probe, TCP, UDP};

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

/// Per-flow state.
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
struct State {
    /// [`UDP_HELLO`]: an RDP-UDP flow whose ClientHello is still to come.
    phase: u8,
}

/// [`State::phase`] of an RDP-UDP flow whose ClientHello is still to come.
const UDP_HELLO: u8 = 1;

/// How far into an RDP-UDP datagram its headers (FEC, acknowledgement vector, source payload)
/// may put a TLS record.
const HELLO_WITHIN: usize = 64;

fn probe(cx: &mut Cx<'_>) -> Probe {
    if cx.state::<State>().phase == UDP_HELLO {
        return udp_hello(cx);
    }
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
    if !ok {
        return Probe::NotForUs;
    }
    if cx.hints.transport == UDP {
        cx.state::<State>().phase = UDP_HELLO;
        cx.want_more();
    }
    Probe::Certain(&LABEL)
}

/// A later datagram of an RDP-UDP flow: the client's TLS ClientHello, if it is in this one.
fn udp_hello(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let start = (0..HELLO_WITHIN.min(d.len())).find(|&i| hello_at(d.get(i..).unwrap_or(&[])));
    match start.and_then(|i| d.get(i..)) {
        Some(h) if cx.hints.dir == Dir::ToServer => {
            let hello = crate::proto::tls::hello_in_record(h, cx.meta, cx.digests);
            if hello != Some(true) {
                cx.malformed();
            }
            crate::proto::tls::tls_event(cx, hello.is_some());
            cx.state::<State>().phase = 0;
        }
        _ => cx.want_more(),
    }
    Probe::Certain(&LABEL)
}

/// Does a TLS handshake record holding a whole ClientHello start `d` (record and handshake
/// lengths agreeing)?
fn hello_at(d: &[u8]) -> bool {
    let Some(h) = d.get(..9) else {
        return false;
    };
    let rlen = usize::from(u16::from_be_bytes([h[3], h[4]]));
    let hlen = usize::from(h[6]) << 16 | usize::from(h[7]) << 8 | usize::from(h[8]);
    h[0] == 0x16 && h[1] == 3 && h[2] <= 4 && h[5] == 1 && hlen + 4 == rlen && d.len() >= 5 + rlen
}

#[cfg(test)]
mod tests;
