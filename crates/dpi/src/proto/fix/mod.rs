//! FIX (Financial Information eXchange) over TCP: every message starts with the tags
//! BeginString (`8=FIX.4.2`, `8=FIXT.1.1`, or a short private one such as `8=O`), BodyLength
//! (`9=` and digits) and MsgType (`35=`), separated by SOH.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP};

/// nDPI's FIX label.
pub static LABEL: Label = label("FIX", "RPC");

/// The FIX inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "fix",
    transports: TCP,
    ports: &[],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let Some(rest) = d.strip_prefix(b"8=") else {
        return Probe::NotForUs;
    };
    // The version runs to the first SOH (a few printable bytes).
    let Some(soh) = rest.iter().take(12).position(|&b| b == 1) else {
        return Probe::NotForUs;
    };
    if soh == 0 || !rest.iter().take(soh).all(u8::is_ascii_graphic) {
        return Probe::NotForUs;
    }
    let Some(body) = rest.get(soh + 1..).and_then(|b| b.strip_prefix(b"9=")) else {
        return Probe::NotForUs;
    };
    let digits = body.iter().take(8).take_while(|b| b.is_ascii_digit()).count();
    let after = body.get(digits..).unwrap_or(&[]);
    if digits > 0 && after.starts_with(b"\x0135=") {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
