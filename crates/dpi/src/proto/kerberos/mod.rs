//! Kerberos v5 (RFC 4120) over UDP and TCP (after a four-byte record length): a DER
//! application tag of a Kerberos message (AS/TGS requests and replies, AP, errors...) whose
//! length covers the message, a SEQUENCE, and the protocol version 5 as its first field.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP, UDP};

/// nDPI's Kerberos label.
pub static LABEL: Label = label("Kerberos", "Network");

/// The Kerberos inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "kerberos",
    transports: TCP | UDP,
    ports: &[88],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

/// A length at `d[at..]` ([`crate::ber::len`]): (value, bytes used), at most 3 length octets
/// (a TCP message is read from a prefix: a longer length is no Kerberos message we can see).
fn der_len(d: &[u8], at: usize) -> Option<(usize, usize)> {
    crate::ber::len(d, at).filter(|&(_, n)| n <= 4)
}

/// Is `d` the start of a Kerberos message of `total` bytes (`d` may be a prefix over TCP)?
fn is_krb(d: &[u8], exact: bool) -> bool {
    // [APPLICATION n] constructed: 10-15 (AS/TGS), 20-22 (safe, priv, cred), 30 (error).
    let Some(&tag) = d.first() else {
        return false;
    };
    if !matches!(tag, 0x6a..=0x6f | 0x74..=0x76 | 0x7e) {
        return false;
    }
    let Some((len, n)) = der_len(d, 1) else {
        return false;
    };
    if exact && 1 + n + len != d.len() {
        return false;
    }
    let at = 1 + n;
    if d.get(at) != Some(&0x30) {
        return false;
    }
    let Some((_, m)) = der_len(d, at + 1) else {
        return false;
    };
    // pvno [0] or [1] INTEGER 5 (requests carry it as field 1, replies as field 0).
    let f = at + 1 + m;
    let first = d.get(f..f + 5);
    first == Some(&[0xa0, 3, 2, 1, 5]) || first == Some(&[0xa1, 3, 2, 1, 5])
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let ok = if cx.hints.transport == UDP {
        is_krb(d, true)
    } else {
        d.get(..4).is_some_and(|l| {
            let rec = u32::from_be_bytes([l[0], l[1], l[2], l[3]]) as usize;
            rec + 4 >= d.len() && rec < 1 << 20
        }) && is_krb(d.get(4..).unwrap_or(&[]), false)
    };
    if ok {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;

