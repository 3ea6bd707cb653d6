//! IEC 60870-5-104: APDUs of a start byte 0x68, a length (4-253) of what follows, and four
//! control octets of an I, S or U frame; the segment must be a whole number of APDUs.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP};

/// nDPI's IEC60870 label.
pub static LABEL: Label = label("IEC60870", "IoT-Scada");

/// The IEC 60870-5-104 inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "iec60870",
    transports: TCP,
    ports: &[2404],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn apdus(d: &[u8]) -> bool {
    let mut at = 0;
    for _ in 0..32 {
        if at == d.len() {
            return at > 0;
        }
        let (Some(&0x68), Some(&len), Some(&c1)) = (d.get(at), d.get(at + 1), d.get(at + 2))
        else {
            return false;
        };
        let frame_ok = match c1 & 3 {
            // S frame: control octets 1 is 0x01, length 4.
            1 => c1 == 1 && len == 4,
            // U frame: exactly one function bit, length 4.
            3 => len == 4 && matches!(c1, 0x07 | 0x0b | 0x13 | 0x23 | 0x43 | 0x83),
            // I frame: carries an ASDU.
            _ => len > 4,
        };
        if !(4..=253).contains(&len) || !frame_ok {
            return false;
        }
        at += 2 + usize::from(len);
    }
    false
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    Probe::certain_if(apdus(cx.data), &LABEL)
}

#[cfg(test)]
mod tests;
