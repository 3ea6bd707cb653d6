//! DLEP, the Dynamic Link Exchange Protocol between routers and radio modems (RFC 8175), port
//! 854. Section 11: UDP signals (Peer Discovery to 224.0.0.117 or FF02::1:7, Peer Offer back)
//! start with the four octets `DLEP`, then a 16-bit signal type and a 16-bit length of the data
//! items that follow; TCP session messages carry a 16-bit message type and length without the
//! prefix. Every data item is a 16-bit type, a 16-bit length and its value.
//!
//! Checked: a signal (`DLEP`, type 1 or 2, length equal to the datagram's rest) or a session
//! message of type 1 or 2 (Session Initialization and its Response, the messages that open a
//! session, section 12) whose length fits the segment; then a walk of the data items
//! (types 1-64, at most 64 items) ending exactly at the signal's or message's end. Without the
//! prefix, the Heartbeat Interval item (type 5, 4 octets) these messages must carry is required.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP, UDP};

/// nDPI's DLEP label.
pub static LABEL: Label = label("DLEP", "Network");

/// The DLEP inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "dlep",
    transports: TCP | UDP,
    ports: &[854],
    labels: &[&LABEL],
    min_udp: 8,
    ports_required: false,
    probe,
};

const HEARTBEAT_INTERVAL: u16 = 5;

/// Walks the data items of `d`; `Some(true)` if one is a 4-octet Heartbeat Interval.
fn items(d: &[u8]) -> Option<bool> {
    let (mut at, mut heartbeat) = (0, false);
    for n in 0..64 {
        if at == d.len() {
            return (n > 0).then_some(heartbeat);
        }
        let h = d.get(at..at + 4)?;
        let (t, len) = (u16::from_be_bytes([h[0], h[1]]), u16::from_be_bytes([h[2], h[3]]));
        if !(1..=64).contains(&t) {
            return None;
        }
        heartbeat |= t == HEARTBEAT_INTERVAL && len == 4;
        at += 4 + usize::from(len);
    }
    None
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let (signal, head) = match d.strip_prefix(b"DLEP") {
        Some(rest) => (true, rest),
        None => (false, d),
    };
    let (Some(t), Some(l)) = (head.get(..2), head.get(2..4)) else {
        return Probe::NotForUs;
    };
    let kind = u16::from_be_bytes([t[0], t[1]]);
    let end = 4 + usize::from(u16::from_be_bytes([l[0], l[1]]));
    let ok = if signal {
        (1..=2).contains(&kind) && end == head.len() && items(&head[4..]).is_some()
    } else {
        cx.hints.transport == TCP
            && (1..=2).contains(&kind)
            && head.get(4..end).and_then(items) == Some(true)
    };
    if ok {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
