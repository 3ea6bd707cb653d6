//! Alibaba Cloud's TCP link (port 8999 in the captures): the client's first segment is exactly
//! the 8-byte preamble `ce fa be ba 80 00 00 00`.

use crate::proto::label;
use crate::{Cx, Dir, Inspector, Label, Probe, TCP};

/// nDPI's AliCloud label.
pub static LABEL: Label = label("AliCloud", "Cloud");

/// The AliCloud inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "alicloud",
    transports: TCP,
    ports: &[8999],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let first = cx.hints.dir == Dir::ToServer && cx.hints.nth == 0;
    if first && cx.data == [0xce, 0xfa, 0xbe, 0xba, 0x80, 0, 0, 0] {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
