//! BFD (RFC 5880) control packets over UDP to the ports RFC 5881/5883/7130 assign (3784 single
//! hop, 4784 multihop, 6784 micro-BFD): version 1, a diagnostic code of 0-8, the multipoint bit
//! clear, a non-zero detection multiplier and discriminator, and a length byte (24, or up to 52
//! with authentication) equal to the datagram. (An OpenVPN packet in openvpn.pcap passed the
//! checks without the port.)

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, UDP};

/// nDPI's BFD label.
pub static LABEL: Label = label("BFD", "Network");

/// The BFD inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "bfd",
    transports: UDP,
    ports: &[3784, 4784, 6784],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let (Some(&vd), Some(&flags), Some(&mult), Some(&len), Some(disc)) =
        (d.first(), d.get(1), d.get(2), d.get(3), d.get(4..8))
    else {
        return Probe::NotForUs;
    };
    let port = [3784, 4784, 6784].contains(&cx.hints.server_port);
    let ok = port
        && vd >> 5 == 1
        && vd & 0x1f <= 8
        && flags & 1 == 0
        && mult != 0
        && usize::from(len) == d.len()
        && (24..=52).contains(&len)
        && disc != [0, 0, 0, 0];
    if ok {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
