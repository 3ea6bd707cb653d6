//! VXLAN (RFC 7348): Ethernet frames carried in UDP to port 4789. Section 5 gives the 8-byte
//! header: a flags byte with only the I flag (0x08) set, 24 reserved bits (zero), a 24-bit
//! VXLAN network identifier and a reserved byte (zero); the inner Ethernet frame follows.
//!
//! Checked: the flags byte is exactly 0x08, the four reserved bytes are zero, an inner frame
//! of at least an Ethernet header (14 bytes) follows, and its EtherType is one carried in
//! practice (IPv4, IPv6, ARP, 802.1Q/802.1ad VLAN tags, MPLS). The header has few fixed bits,
//! so the flow must use VXLAN's port 4789 (`ports_required`), as RFC 7348 section 5 assigns it.
//! (The capture layer normally decapsulates VXLAN to the inner flow; this names the outer flow
//! when it is inspected as UDP, e.g. a VNI the decoder was not asked to open.)

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, UDP};

/// nDPI's VXLAN label.
pub static LABEL: Label = label("VXLAN", "Network");

/// The VXLAN inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "vxlan",
    transports: UDP,
    ports: &[4789],
    labels: &[&LABEL],
    min_udp: 22,
    ports_required: true,
    probe,
};

/// EtherTypes accepted for the inner frame.
const ETHERTYPES: [u16; 6] = [0x0800, 0x86dd, 0x0806, 0x8100, 0x88a8, 0x8847];

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let (Some(&flags), Some(&[0, 0, 0]), Some(&0), Some(et)) =
        (d.first(), d.get(1..4), d.get(7), d.get(20..22))
    else {
        return Probe::NotForUs;
    };
    let ethertype = u16::from_be_bytes([et[0], et[1]]);
    if cx.hints.port(4789) && flags == 0x08 && ETHERTYPES.contains(&ethertype) {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
