//! KCP (reliable ARQ over UDP): a datagram is a run of segments, each a 24-byte little-endian
//! header (conversation, command 81-84, fragment, window, timestamp, sequence, una, length)
//! and its data; the segments must fill the datagram exactly and share the conversation id.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, UDP};

/// nDPI's KCP label.
pub static LABEL: Label = label("KCP", "Network");

/// The KCP inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "kcp",
    transports: UDP,
    ports: &[],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

const HEADER: usize = 24;

fn is_kcp(d: &[u8]) -> bool {
    let Some(conv) = d.get(..4) else {
        return false;
    };
    let mut at = 0;
    for _ in 0..32 {
        let (Some(c), Some(&cmd), Some(l)) =
            (d.get(at..at + 4), d.get(at + 4), d.get(at + 20..at + 24))
        else {
            return false;
        };
        if c != conv || !(81..=84).contains(&cmd) {
            return false;
        }
        let len = u32::from_le_bytes([l[0], l[1], l[2], l[3]]) as usize;
        at = match at.checked_add(HEADER + len) {
            Some(n) => n,
            None => return false,
        };
        if at == d.len() {
            return true;
        }
    }
    false
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    Probe::certain_if(is_kcp(cx.data), &LABEL)
}

#[cfg(test)]
mod tests;
