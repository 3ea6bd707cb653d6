//! FIX (Financial Information eXchange) over TCP: every message starts with the tags
//! `8=FIX.x.y` or `8=FIXT.1.1` (BeginString) then SOH and `9=` (BodyLength, digits).

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP};

/// nDPI's FIX label.
pub static LABEL: Label = label("FIX", "RPC");

/// The FIX inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "fix",
    transports: TCP,
    ports: &[],
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let Some(rest) = d.strip_prefix(b"8=FIX") else {
        return Probe::NotForUs;
    };
    // The version runs to the first SOH (a few bytes), then BodyLength in digits.
    let Some(soh) = rest.iter().take(8).position(|&b| b == 1) else {
        return Probe::NotForUs;
    };
    let body = rest.get(soh + 1..).unwrap_or(&[]);
    if body.starts_with(b"9=") && body.get(2).is_some_and(u8::is_ascii_digit) {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
