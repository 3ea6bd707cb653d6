//! Google Nest log upload (nDPI's NestLogSink): Weave messages over TCP to port 11095. Port,
//! byte tests and minimum are those of nDPI's dissector (src/lib/protocols/nest_log_sink.c):
//! byte 1 at most 2, byte 2 0x00 or 0x10, byte 3 0x13. Read as Weave framing: a little-endian
//! u16 length, then the header field (flags 0x00 or 0x10, version/encryption byte 0x13). nDPI
//! names the flow after three such packets; this inspector names it on the first (the port
//! gate bounds the risk). The test is short, so it is only tried on 11095; a packet that does
//! not start a message (a continuation) leaves the flow undecided for the next one.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP};

/// nDPI's NestLogSink label.
pub static LABEL: Label = label("NestLogSink", "Cloud");

/// The Nest log sink inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "nest_log_sink",
    transports: TCP,
    ports: &[PORT],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: true,
    probe,
};

/// Shortest framed message: header field (2) and message id (4).
const MIN_MESSAGE: usize = 6;

fn starts_message(d: &[u8]) -> bool {
    let Some(&[lo, hi, flags, ver]) = d.get(..4) else {
        return false;
    };
    let len = usize::from(u16::from_le_bytes([lo, hi]));
    hi <= 2 && (flags == 0x00 || flags == 0x10) && ver == 0x13 && len >= MIN_MESSAGE
}

/// The Weave port (the inspector's only one: `ports_required`).
const PORT: u16 = 11095;

fn probe(cx: &mut Cx<'_>) -> Probe {
    // The engine shows this inspector only flows on its port; the probe says so itself, so it
    // claims nothing its filter would hide (the property test of every inspector).
    if cx.hints.port(PORT) && starts_message(cx.data) {
        Probe::Certain(&LABEL)
    } else {
        Probe::Unsure
    }
}

#[cfg(test)]
mod tests;
