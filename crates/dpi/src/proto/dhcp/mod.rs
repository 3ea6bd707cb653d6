//! DHCP (RFC 2131) over UDP: a BOOTP header with the DHCP magic cookie; the client's host name
//! (option 12).

use crate::meta::Field;
use crate::proto::label;
use crate::util::Rd;
use crate::{Cx, Inspector, Label, Probe, UDP};

/// nDPI's DHCP label.
pub static LABEL: Label = label("DHCP", "Network");

/// The DHCP inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "dhcp",
    transports: UDP,
    ports: &[67, 68],
    labels: &[&LABEL],
    min_udp: 240,
    ports_required: false,
    probe,
};

/// Per-flow state.
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
struct State {
    /// A DHCP message was seen (1): later packets that are not keep the label.
    seen: u8,
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let ok = d.len() >= 240
        && matches!(d.first(), Some(1 | 2))
        && d.get(236..240) == Some(&[0x63, 0x82, 0x53, 0x63][..]);
    if !ok {
        return if cx.state::<State>().seen != 0 {
            Probe::Certain(&LABEL)
        } else {
            Probe::NotForUs
        };
    }
    cx.state::<State>().seen = 1;
    let mut r = Rd::new(d.get(240..).unwrap_or(&[]));
    let mut guard = 0;
    while r.left() > 0 && guard < 256 {
        guard += 1;
        match r.u8() {
            Some(0) => continue,
            Some(255) | None => break,
            Some(code) => {
                let Some(v) = r.vec8() else {
                    cx.malformed();
                    break;
                };
                if code == 12 {
                    cx.set(Field::DhcpHost, v);
                }
            }
        }
    }
    if cx.meta.get(Field::DhcpHost).is_none() {
        cx.want_more();
    }
    Probe::Certain(&LABEL)
}

#[cfg(test)]
mod tests;
