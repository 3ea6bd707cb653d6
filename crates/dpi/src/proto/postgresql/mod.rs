//! PostgreSQL: the client's first message has no type byte, a 32-bit length equal to the
//! segment, and a code: protocol 3.0 (startup), or the SSL, GSS-encryption or cancel requests.

use crate::proto::label;
use crate::{Cx, Dir, Inspector, Label, Probe, TCP};

/// nDPI's PostgreSQL label.
pub static LABEL: Label = label("PostgreSQL", "Database");

/// The PostgreSQL inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "postgresql",
    transports: TCP,
    ports: &[5432],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    if cx.hints.dir != Dir::ToServer || cx.hints.nth != 0 {
        return Probe::NotForUs;
    }
    let (Some(l), Some(c)) = (d.get(..4), d.get(4..8)) else {
        return Probe::NotForUs;
    };
    let len = u32::from_be_bytes([l[0], l[1], l[2], l[3]]) as usize;
    let code = u32::from_be_bytes([c[0], c[1], c[2], c[3]]);
    let ok = len == d.len()
        && match code {
            0x0003_0000 => len > 8 && d.last() == Some(&0),
            80_877_103 | 80_877_104 => len == 8,
            80_877_102 => len == 16,
            _ => false,
        };
    if ok {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
