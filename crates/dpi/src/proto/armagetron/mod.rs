//! Armagetron Advanced (nDPI's Armagetron): a UDP datagram is a chain of messages, each a
//! big-endian descriptor id (the command: 1 ack ... 340 zone), a message id and a data length
//! counted in 16-bit words, then that data; the datagram ends with the sender's 16-bit id. The
//! chain must fill the datagram exactly. Small datagrams (a server-browser request is 8 bytes)
//! make this a weak test, so it is only tried on the game's ports: 4534 is the documented
//! default server port and 4534-4540 the range servers are hosted on (protocolinfo.org's
//! Armagetron page). nDPI's armagetron.c reads the same layout (descriptor, message id, data
//! length in 16-bit words at offset 4, a final 16-bit sender id); the descriptor cap of 340
//! is not backed by a source found so far.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, UDP};

/// nDPI's Armagetron label.
pub static LABEL: Label = label("Armagetron", "Game");

/// The Armagetron inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "armagetron",
    transports: UDP,
    ports: &[4534, 4535, 4536, 4537, 4538, 4539, 4540],
    labels: &[&LABEL],
    min_udp: 8,
    ports_required: true,
    probe,
};

/// Highest descriptor id the game defines (the `zone` object).
const MAX_DESCRIPTOR: u16 = 340;
/// Most messages looked at in one datagram.
const MAX_MESSAGES: usize = 64;

/// Does `d` parse as whole messages followed by the sender id?
fn is_armagetron(d: &[u8]) -> bool {
    let mut at = 0usize;
    let mut n = 0;
    while d.len().saturating_sub(at) > 2 {
        if n == MAX_MESSAGES {
            return false;
        }
        let (Some(h), Some(l)) = (d.get(at..at + 2), d.get(at + 4..at + 6)) else {
            return false;
        };
        let desc = u16::from_be_bytes([h[0], h[1]]);
        if desc == 0 || desc > MAX_DESCRIPTOR {
            return false;
        }
        let words = usize::from(u16::from_be_bytes([l[0], l[1]]));
        at += 6 + 2 * words;
        if at > d.len() {
            return false;
        }
        n += 1;
    }
    n > 0 && d.len() - at == 2
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    // Bound to its ports here too, not only by the scheduler's port filter (as the property
    // test `inspectors_never_panic` asks of every inspector with `ports_required`).
    if !INSPECTOR.on_ports(&cx.hints) {
        return Probe::NotForUs;
    }
    Probe::certain_if(is_armagetron(cx.data), &LABEL)
}

#[cfg(test)]
mod tests;
