//! XDMCP (X Display Manager Control Protocol 1.1, section 7 "Protocol Encoding"): a header of
//! version 1, an opcode (BroadcastQuery 1 to Alive 14) and the length of the data that follows,
//! equal to the rest of the datagram. Six bytes of header are a weak test, so the inspector is
//! bound to the XDMCP port 177.

use crate::proto::label;
use crate::util::Rd;
use crate::{Cx, Inspector, Label, Probe, UDP};

/// nDPI's XDMCP label.
pub static LABEL: Label = label("XDMCP", "RemoteAccess");

/// The XDMCP inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "xdmcp",
    transports: UDP,
    ports: &[177],
    labels: &[&LABEL],
    min_udp: 6,
    ports_required: true,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let mut r = Rd::new(d);
    let (Some(version), Some(opcode), Some(len)) = (r.u16(), r.u16(), r.u16()) else {
        return Probe::NotForUs;
    };
    if cx.hints.port(177) && version == 1 && (1..=14).contains(&opcode) && usize::from(len) == r.left() {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
