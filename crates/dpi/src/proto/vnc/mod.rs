//! VNC (RFB, RFC 6143): both ends open with the 12-byte version string `RFB xxx.yyy\n`.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP};

/// nDPI's VNC label.
pub static LABEL: Label = label("VNC", "RemoteAccess");

/// The VNC inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "vnc",
    transports: TCP,
    ports: &[5900, 5901, 5800],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let ok = d.len() == 12
        && d.starts_with(b"RFB ")
        && d.get(7) == Some(&b'.')
        && d.get(11) == Some(&b'\n')
        && d.get(4..7).is_some_and(|v| v.iter().all(u8::is_ascii_digit))
        && d.get(8..11).is_some_and(|v| v.iter().all(u8::is_ascii_digit));
    if ok {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
