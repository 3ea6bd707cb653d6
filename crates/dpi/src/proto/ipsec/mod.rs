//! IPsec key exchange (IKEv1/ISAKMP and IKEv2) over UDP 500, and over UDP 4500 after the
//! four-byte non-ESP marker: a 28-byte header with a non-zero initiator SPI, a version of 1.0
//! or 2.0, a known exchange type and a length equal to the message.

use crate::proto::label;
use crate::util::Rd;
use crate::{Cx, Inspector, Label, Probe, UDP};

/// nDPI's IPSec label.
pub static LABEL: Label = label("IPSec", "VPN");

/// The IKE inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "ipsec",
    transports: UDP,
    ports: &[500, 4500],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

/// Is `d` one IKE message?
fn is_ike(d: &[u8]) -> bool {
    let mut r = Rd::new(d);
    let (Some(ispi), Some(_rspi), Some(_next), Some(ver), Some(exch), Some(_flags), Some(_id)) = (
        r.take(8),
        r.take(8),
        r.u8(),
        r.u8(),
        r.u8(),
        r.u8(),
        r.u32(),
    ) else {
        return false;
    };
    let Some(len) = r.u32() else {
        return false;
    };
    let exch_ok = match ver {
        0x10 => matches!(exch, 0..=6 | 32..=34),
        0x20 => matches!(exch, 34..=37),
        _ => false,
    };
    exch_ok && ispi.iter().any(|&b| b != 0) && len as usize == d.len()
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let ike = if d.starts_with(&[0, 0, 0, 0]) {
        is_ike(d.get(4..).unwrap_or(&[]))
    } else {
        is_ike(d)
    };
    if ike {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
