//! Google Nest log upload (nDPI's NestLogSink): Weave messages over TCP to port 11095. Each
//! message is framed by a little-endian u16 length (a log message stays under 768 bytes, so the
//! high byte is 0-2), followed by the Weave header field, whose low byte carries flags 0x00 or
//! 0x10 and whose high byte is 0x13 for the version and encryption these devices use. The
//! test is short, so it is only tried on 11095; a packet that does not start a message (a
//! continuation) leaves the flow undecided for the next one.

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
