//! Paltalk's native chat protocol (nDPI's Paltalk), beside its TLS and HTTP traffic: small fixed
//! TCP messages. A 20-byte one carries `00 02 00 01` at offset 8 and `5a fd ff ff` at offset
//! 16; a 22-byte one carries `24 c2 e8 0b` at offset 2 and `5b 73 2b 00` at offset 17: nDPI's
//! rule (src/lib/protocols/paltalk.c), on any port.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP};

/// nDPI's Paltalk label.
pub static LABEL: Label = label("Paltalk", "Chat");

/// The Paltalk inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "paltalk",
    transports: TCP,
    ports: &[],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn is_paltalk(d: &[u8]) -> bool {
    match d.len() {
        20 => d.get(8..12) == Some(&[0, 2, 0, 1]) && d.get(16..20) == Some(&[0x5a, 0xfd, 0xff, 0xff]),
        22 => {
            d.get(2..6) == Some(&[0x24, 0xc2, 0xe8, 0x0b])
                && d.get(17..21) == Some(&[0x5b, 0x73, 0x2b, 0x00])
        }
        _ => false,
    }
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    Probe::certain_if(is_paltalk(cx.data), &LABEL)
}

#[cfg(test)]
mod tests;
