//! GTP over UDP: GTPv1 (version 1, protocol type 1) with a length equal to the datagram less
//! its 8-byte mandatory header, and GTPv2-C (version 2) with a length equal to the datagram
//! less 4; both with a known message type. GTP' (3GPP TS 32.295, charging records, UDP 3386):
//! protocol type 0, the spare bits set, a 6-byte header (20 in version 0) and a length that ends
//! the datagram, with an echo, node-alive, redirection or data-record-transfer message.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, UDP};

/// nDPI's GTP label.
pub static LABEL: Label = label("GTP", "Network");

/// nDPI's label for GTP' (GTP prime).
pub static PRIME: Label = Label {
    app: "GTP_PRIME",
    master: "GTP",
    category: "Network",
};

/// The GTP inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "gtp",
    transports: UDP,
    ports: &[2123, 2152, 3386],
    labels: &[&LABEL, &PRIME],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let (Some(&flags), Some(&ty), Some(l)) = (d.first(), d.get(1), d.get(2..4)) else {
        return Probe::NotForUs;
    };
    let len = usize::from(u16::from_be_bytes([l[0], l[1]]));
    // GTP': protocol type bit clear, the three spare bits set.
    if flags & 0x1e == 0x0e && flags >> 5 <= 2 {
        let header = if flags & 0x01 == 0 && flags >> 5 == 0 { 20 } else { 6 };
        let ok = matches!(ty, 1..=7 | 240 | 241) && len + header == d.len();
        return Probe::certain_if(ok, &PRIME);
    }
    let ok = match flags >> 5 {
        1 => flags & 0x10 != 0 && matches!(ty, 1..=7 | 16..=31 | 254 | 255) && len + 8 == d.len(),
        2 => {
            flags & 0x07 == 0
                && matches!(ty, 1..=3 | 32..=39 | 64..=73 | 95..=101 | 128..=130 | 160..=179 | 200..=203 | 211 | 231..=240)
                && len + 4 == d.len()
        }
        _ => false,
    };
    if ok {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
