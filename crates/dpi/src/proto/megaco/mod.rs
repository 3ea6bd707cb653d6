//! Megaco / H.248 (nDPI's Megaco), text encoding (RFC 3525, Annex B), UDP or TCP 2944. A message
//! is `MEGACO/<version>` (or the compact `!/<version>`), a separator, the sender's message
//! identifier (mId: an address in brackets `[192.0.2.1]`, a domain name in angle brackets
//! `<mg1.example.net>`, each with an optional `:port`, or an MTP address `MTP{hex}`), then the
//! message body: transactions (`Transaction`/`T`), replies (`Reply`/`P`), pending
//! (`Pending`/`PN`), acknowledgements (`TransactionResponseAck`/`K`) or an error descriptor
//! (`Error`/`ER`) (RFC 3525 Annex B.2, `megacoMessage`, `Message`, `mId`, `messageBody`). Over TCP
//! every message is preceded by a TPKT header: version 3, a reserved zero, the 16-bit length of
//! header and message (RFC 3525 Annex D.2; RFC 1006 §6).
//!
//! Checked: the TPKT header on TCP when present (version, zero, a length covering at least the
//! segment's first message), the protocol token and a one- or two-digit version, the mId's
//! form and closing bracket with an optional port of digits, and a known body token after
//! white space. The binary (ASN.1) encoding on 2945 is not recognised.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP, UDP};

/// nDPI's Megaco label.
pub static LABEL: Label = label("Megaco", "VoIP");

/// The Megaco inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "megaco",
    transports: TCP | UDP,
    ports: &[2944],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

/// Body tokens (RFC 3525 Annex B.2), long and compact forms.
const BODY: &[&[u8]] = &[
    b"TransactionResponseAck",
    b"Transaction",
    b"Reply",
    b"Pending",
    b"Error",
    b"PN",
    b"ER",
    b"T",
    b"P",
    b"K",
];

fn probe(cx: &mut Cx<'_>) -> Probe {
    let mut d = cx.data;
    if cx.hints.transport == TCP {
        if let [3, 0, hi, lo, rest @ ..] = d {
            let len = usize::from(u16::from_be_bytes([*hi, *lo]));
            if len < 4 + 10 {
                return Probe::NotForUs;
            }
            d = rest;
        }
    }
    if message(d) {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

fn strip_ci<'a>(d: &'a [u8], p: &[u8]) -> Option<&'a [u8]> {
    d.get(..p.len()).filter(|h| h.eq_ignore_ascii_case(p)).map(|_| &d[p.len()..])
}

fn skip_space(d: &[u8]) -> &[u8] {
    let n = d.iter().take_while(|c| matches!(c, b' ' | b'\t' | b'\r' | b'\n')).count();
    &d[n..]
}

/// Does `d` open with a text-encoded Megaco message header and body token?
pub(crate) fn message(d: &[u8]) -> bool {
    let Some(rest) = strip_ci(d, b"MEGACO/").or_else(|| d.strip_prefix(b"!/")) else {
        return false;
    };
    let v = rest.iter().take(3).take_while(|c| c.is_ascii_digit()).count();
    if !(1..=2).contains(&v) {
        return false;
    }
    let rest = &rest[v..];
    let after = skip_space(rest);
    if after.len() == rest.len() {
        return false; // no separator
    }
    let Some(rest) = mid(after) else {
        return false;
    };
    let body = skip_space(rest);
    if body.len() == rest.len() {
        return false; // no separator
    }
    BODY.iter().any(|t| {
        strip_ci(body, t)
            .and_then(|r| r.first())
            .is_some_and(|c| matches!(c, b' ' | b'\t' | b'\r' | b'\n' | b'=' | b'{'))
    })
}

/// The mId at the start of `d`: what follows it.
fn mid(d: &[u8]) -> Option<&[u8]> {
    let (close, rest) = match d.first()? {
        b'[' => (b']', &d[1..]),
        b'<' => (b'>', &d[1..]),
        _ => (b'}', strip_ci(d, b"MTP{")?),
    };
    let n = rest.iter().take(64).position(|&c| c == close)?;
    let inner = &rest[..n];
    let ok = match close {
        b'}' => (4..=8).contains(&n) && inner.iter().all(u8::is_ascii_hexdigit),
        b']' => n > 0 && inner.iter().all(|c| c.is_ascii_hexdigit() || b".:".contains(c)),
        _ => n > 0 && inner.iter().all(|c| c.is_ascii_alphanumeric() || b".-_".contains(c)),
    };
    if !ok {
        return None;
    }
    let rest = &rest[n + 1..];
    match rest.strip_prefix(b":") {
        Some(port) => {
            let p = port.iter().take(6).take_while(|c| c.is_ascii_digit()).count();
            (1..=5).contains(&p).then(|| &port[p..])
        }
        None => Some(rest),
    }
}

#[cfg(test)]
mod tests;
