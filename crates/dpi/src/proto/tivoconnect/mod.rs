//! TiVoConnect Discovery (TCD): the beacons TiVo DVRs and TiVo Desktop servers broadcast on UDP
//! port 2190 and exchange over TCP 2190 (TiVo Inc., "TiVo Connect Automatic Machine Discovery
//! Protocol Specification", the beacon format): lines of `key=value` separated by newlines,
//! the first of which is `tivoconnect=<flavor>`, followed by `swversion`, `method`,
//! `identity`, `machine`, `platform`, `services`.
//!
//! Checked: the payload starts with `tivoconnect=`, a decimal flavor of one to three digits and
//! the end of that line (LF or CR LF). The magic is long enough to need no port.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP, UDP};

/// nDPI's TiVoConnect label.
pub static LABEL: Label = label("TiVoConnect", "Network");

/// The TiVoConnect inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "tivoconnect",
    transports: TCP | UDP,
    ports: &[2190],
    labels: &[&LABEL],
    min_udp: 14,
    ports_required: false,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let Some(rest) = cx.data.strip_prefix(b"tivoconnect=") else {
        return Probe::NotForUs;
    };
    let digits = rest.iter().take(4).take_while(|b| b.is_ascii_digit()).count();
    let eol = matches!(rest.get(digits..), Some([b'\n', ..] | [b'\r', b'\n', ..]));
    if (1..=3).contains(&digits) && eol {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
