//! DTLS (RFC 6347, RFC 9147): a record header with a DTLS version and a length that matches the
//! datagram (or the first of several records in it).

use crate::proto::label;
use crate::util::Rd;
use crate::{Cx, Inspector, Label, Probe, UDP};

/// nDPI's DTLS label.
pub static LABEL: Label = label("DTLS", "Web");

/// The DTLS inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "dtls",
    transports: UDP,
    ports: &[443, 4433, 4739, 5061, 5349],
    labels: &[&LABEL],
    min_udp: 13,
    ports_required: false,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    if is_dtls(cx.data) {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

/// Does `d` start with a whole DTLS record (and is followed by nothing or another record)?
pub fn is_dtls(d: &[u8]) -> bool {
    let mut r = Rd::new(d);
    let (Some(ct), Some(ver), Some(_epoch)) = (r.u8(), r.u16(), r.u16()) else {
        return false;
    };
    if r.skip(6).is_none() {
        return false;
    }
    let Some(len) = r.u16() else {
        return false;
    };
    // Handshake, change cipher spec, alert or application data, DTLS 1.0 / 1.2 / 1.3 record.
    let ok = matches!(ct, 20..=23)
        && matches!(ver, 0xfeff | 0xfefd | 0xfefc)
        && len > 0
        && 13 + len as usize <= d.len()
        && (13 + len as usize == d.len() || d.get(13 + len as usize).is_some_and(|&c| matches!(c, 20..=23)));
    ok
}

#[cfg(test)]
mod tests;
