//! BFD (RFC 5880) control packets over UDP: version 1, a non-zero detection multiplier and
//! discriminator, and a length byte (24, or more with authentication) equal to the datagram.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, UDP};

/// nDPI's BFD label.
pub static LABEL: Label = label("BFD", "Network");

/// The BFD inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "bfd",
    transports: UDP,
    ports: &[3784, 3785, 4784],
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let (Some(&vd), Some(&mult), Some(&len), Some(disc)) =
        (d.first(), d.get(2), d.get(3), d.get(4..8))
    else {
        return Probe::NotForUs;
    };
    let ok = vd >> 5 == 1
        && mult != 0
        && usize::from(len) == d.len()
        && len >= 24
        && disc != [0, 0, 0, 0];
    if ok {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
