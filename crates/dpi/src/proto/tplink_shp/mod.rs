//! TP-Link Smart Home Protocol: JSON obfuscated with an autokey XOR (key 171, then each
//! ciphertext byte keys the next). Over UDP the whole datagram is one message; over TCP it is
//! preceded by a 32-bit length. The decoded text must open with `{"` and be printable.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP, UDP};

/// nDPI's TPLINK_SHP label.
pub static LABEL: Label = label("TPLINK_SHP", "IoT-Scada");

/// The TP-Link SHP inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "tplink_shp",
    transports: UDP | TCP,
    ports: &[9999],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

/// Does `c` decode to printable JSON text (up to its first 64 bytes)?
fn decodes(c: &[u8]) -> bool {
    // '{' under the first key: most payloads stop here.
    if c.first() != Some(&(b'{' ^ 171)) {
        return false;
    }
    let mut key = 171u8;
    let mut plain = [0u8; 2];
    for (i, &b) in c.iter().take(64).enumerate() {
        let p = b ^ key;
        key = b;
        if let Some(s) = plain.get_mut(i) {
            *s = p;
        }
        if !(p.is_ascii_graphic() || p == b' ') {
            return false;
        }
    }
    c.len() >= 8 && plain == *b"{\""
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let msg = if cx.hints.transport == TCP {
        let Some(l) = d.get(..4) else {
            return Probe::NotForUs;
        };
        let len = u32::from_be_bytes([l[0], l[1], l[2], l[3]]) as usize;
        if len + 4 != d.len() {
            return Probe::NotForUs;
        }
        d.get(4..).unwrap_or(&[])
    } else {
        d
    };
    Probe::certain_if(decodes(msg), &LABEL)
}

#[cfg(test)]
mod tests;
