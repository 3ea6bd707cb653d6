//! LDAP (RFC 4511): a BER LDAPMessage, a SEQUENCE whose length covers the segment, an INTEGER
//! message id of 1-4 bytes, and a protocol operation with an application tag (bind, search,
//! modify... requests and responses), itself of a length that fits.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP, UDP};

/// nDPI's LDAP label.
pub static LABEL: Label = label("LDAP", "System");

/// The LDAP inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "ldap",
    transports: TCP | UDP,
    ports: &[389, 1389, 3268],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};


fn is_ldap(d: &[u8]) -> Option<bool> {
    if *d.first()? != 0x30 {
        return Some(false);
    }
    let (len, n) = crate::ber::len(d, 1)?;
    let body = 1 + n;
    if body + len != d.len() || *d.get(body)? != 0x02 {
        return Some(false);
    }
    let idlen = usize::from(*d.get(body + 1)?);
    if !(1..=4).contains(&idlen) {
        return Some(false);
    }
    let op_at = body + 2 + idlen;
    let op = *d.get(op_at)?;
    // [APPLICATION 0..25], constructed or primitive (unbind, delete, abandon).
    let app = op & 0xc0 == 0x40 && (op & 0x1f) <= 25;
    let (oplen, m) = crate::ber::len(d, op_at + 1)?;
    Some(app && op_at + 1 + m + oplen <= d.len())
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    if is_ldap(cx.data) == Some(true) {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
