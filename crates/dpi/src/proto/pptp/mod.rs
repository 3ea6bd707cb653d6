//! PPTP's control connection (RFC 2637 section 2.1): every control message starts with its
//! length, the PPTP message type 1 (control), the magic cookie 0x1A2B3C4D, a control message
//! type (1-15) and a zero reserved field. The length must cover the header and fit the segment.

use crate::proto::label;
use crate::util::Rd;
use crate::{Cx, Inspector, Label, Probe, TCP};

/// nDPI's PPTP label.
pub static LABEL: Label = label("PPTP", "VPN");

/// The PPTP inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "pptp",
    transports: TCP,
    ports: &[1723],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

/// RFC 2637's magic cookie.
const COOKIE: u32 = 0x1a2b_3c4d;

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let mut r = Rd::new(d);
    let (Some(len), Some(kind), Some(cookie), Some(ctrl), Some(reserved)) =
        (r.u16(), r.u16(), r.u32(), r.u16(), r.u16())
    else {
        return Probe::NotForUs;
    };
    let len = usize::from(len);
    if cookie == COOKIE && kind == 1 && (1..=15).contains(&ctrl) && reserved == 0 && len >= 16 && len <= d.len() {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
