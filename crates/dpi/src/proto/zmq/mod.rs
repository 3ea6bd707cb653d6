//! ZeroMQ's transport protocol ZMTP 3.x (nDPI's ZeroMQ) over TCP. Each peer opens with a
//! 64-byte greeting (ZMTP 3.0, rfc.zeromq.org/spec/23, and 3.1, spec/37, "Greeting"): the
//! signature `%xFF padding(8) %x7F`, the version (major 3, minor 0 or 1), a 20-byte mechanism
//! name padded with NULs (`NULL`, `PLAIN`, `CURVE`, …), the as-server flag (0 or 1) and 31 NUL
//! bytes of filler. libzmq sends the 10-byte signature alone first and the rest once the peer's
//! signature has arrived, so the greeting is read reassembled across segments.
//!
//! Checked: the signature's first and last bytes, major version 3 and minor 0 or 1, a mechanism
//! of upper-case letters, digits or `-_.+%` followed only by NULs, the as-server flag, and the
//! filler's NULs as far as they reach. Nothing is claimed before the mechanism is seen: the
//! signature alone is only three fixed bytes.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP};

/// nDPI's ZeroMQ label.
pub static LABEL: Label = label("ZeroMQ", "RPC");

/// The ZeroMQ inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "zmq",
    transports: TCP,
    ports: &[],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

/// Signature (10), version (2), mechanism (20): the bytes needed before a claim.
const NEED: usize = 32;

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    if d.first() != Some(&0xff) || d.get(9).is_some_and(|&b| b != 0x7f) {
        return Probe::NotForUs;
    }
    if d.get(10).is_some_and(|&m| m != 3) || d.get(11).is_some_and(|&m| m > 1) {
        return Probe::NotForUs;
    }
    let Some(mech) = d.get(12..NEED) else {
        // The signature (and version) alone so far: look at the rest when it comes.
        cx.incomplete();
        return Probe::Unsure;
    };
    let name = mech.iter().take_while(|&&c| c != 0).count();
    let name_ok = mech.get(..name).is_some_and(|n| {
        n.iter().all(|&c| c.is_ascii_uppercase() || c.is_ascii_digit() || b"-_.+%".contains(&c))
    });
    if name == 0 || !name_ok || mech.get(name..).is_some_and(|z| z.iter().any(|&c| c != 0)) {
        return Probe::NotForUs;
    }
    if d.get(32).is_some_and(|&s| s > 1) {
        return Probe::NotForUs;
    }
    if d.get(33..d.len().min(64)).is_some_and(|f| f.iter().any(|&c| c != 0)) {
        return Probe::NotForUs;
    }
    Probe::Certain(&LABEL)
}

#[cfg(test)]
mod tests;
