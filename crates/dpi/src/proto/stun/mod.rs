//! STUN (RFC 5389 and the classic RFC 3489): a 20-byte header whose length matches the message.

use crate::proto::label;
use crate::util::Rd;
use crate::{Cx, Inspector, Label, Probe, TCP, UDP};

/// nDPI's STUN label.
pub static LABEL: Label = label("STUN", "Network");

/// The STUN inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "stun",
    transports: UDP | TCP,
    ports: &[3478, 3479, 5349, 19302],
    labels: &[&LABEL, &crate::proto::dtls::LABEL],
    min_udp: 20,
    ports_required: false,
    probe,
};

const COOKIE: u32 = 0x2112_a442;

/// Is `d` one STUN message (or, over TCP, does one start it)?
pub fn is_stun(d: &[u8], tcp: bool) -> bool {
    let mut r = Rd::new(d);
    let (Some(typ), Some(len), Some(cookie)) = (r.u16(), r.u16(), r.u32()) else {
        return false;
    };
    if typ & 0xc000 != 0 || len % 4 != 0 {
        return false;
    }
    let total = 20 + len as usize;
    let fits = if tcp { total <= d.len() } else { total == d.len() };
    if !fits {
        return false;
    }
    if cookie == COOKIE {
        return true;
    }
    // RFC 3489: Binding and Shared Secret requests, responses and errors only.
    matches!(typ, 0x0001 | 0x0101 | 0x0111 | 0x0002 | 0x0102 | 0x0112) && len > 0
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    let tcp = cx.hints.transport == TCP;
    // Over TCP a message may be framed by a two-byte length (RFC 4571, TURN over TCP).
    let framed = tcp
        && cx.data.get(..2).is_some_and(|l| {
            usize::from(u16::from_be_bytes([l[0], l[1]])) + 2 <= cx.data.len()
        })
        && is_stun(cx.data.get(2..).unwrap_or(&[]), true);
    if cx.state[0] != 0 {
        // After STUN, WebRTC media sets up DTLS on the same 5-tuple: nDPI names the flow
        // DTLS then.
        if !tcp && crate::proto::dtls::is_dtls(cx.data) {
            // Its server certificate too, while the budget lasts.
            return crate::proto::dtls::handshake(cx);
        }
        cx.want_more();
        return Probe::Certain(&LABEL);
    }
    if framed || is_stun(cx.data, tcp) {
        cx.state[0] = 1;
        if !tcp {
            cx.want_more();
        }
        Probe::Certain(&LABEL)
    } else if cx.data.len() < 20 && cx.hints.transport == TCP {
        Probe::Unsure
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
