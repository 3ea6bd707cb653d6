//! DingTalk (Alibaba's messenger) in the clear: a TCP payload of more than 90 bytes that opens
//! with `10`, any byte, then the fixed 14 bytes `87 80 01 00 01 00 02 00 02 64 6b 03 00 20`
//! (`dk` and a version among them), nDPI's rule for the client's login frame
//! (src/lib/protocols/dingtalk.c).

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP};

/// nDPI's DingTalk label.
pub static LABEL: Label = label("DingTalk", "Chat");

/// The DingTalk inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "dingtalk",
    transports: TCP,
    ports: &[],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

/// Bytes 2..16 of the frame.
const FIXED: [u8; 14] = [
    0x87, 0x80, 0x01, 0x00, 0x01, 0x00, 0x02, 0x00, 0x02, 0x64, 0x6b, 0x03, 0x00, 0x20,
];

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    if d.len() > 90 && d.first() == Some(&0x10) && d.get(2..16) == Some(&FIXED[..]) {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
