//! MGCP (RFC 3435 section 3.2.1): a command line is a verb (any case) (`EPCF CRCX MDCX DLCX RQNT NTFY
//! AUEP AUCX RSIP`, and `MESG`), a transaction id of 1 to 9 digits, an endpoint name
//! `local@domain`, and the protocol version `MGCP 1.0` (an optional profile may follow). The
//! endpoint's domain is kept as the flow's host name, as nDPI does. A response line (three-digit
//! code, transaction id) is accepted only on the MGCP ports 2427/2727, its text being generic.

use crate::proto::label;
use crate::{Cx, Field, Inspector, Label, Probe, TCP, UDP};

/// nDPI's MGCP label.
pub static LABEL: Label = label("MGCP", "VoIP");

/// The MGCP inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "mgcp",
    transports: UDP | TCP,
    ports: &[2427, 2727],
    labels: &[&LABEL],
    min_udp: 8,
    ports_required: false,
    probe,
};

const VERBS: &[&[u8; 4]] = &[
    b"EPCF", b"CRCX", b"MDCX", b"DLCX", b"RQNT", b"NTFY", b"AUEP", b"AUCX", b"RSIP", b"MESG",
];

/// 1 to 9 ASCII digits.
fn txid(t: &[u8]) -> bool {
    (1..=9).contains(&t.len()) && t.iter().all(u8::is_ascii_digit)
}

/// The first line of `d` (without its end of line), if one ends within the first 256 bytes.
fn first_line(d: &[u8]) -> Option<&[u8]> {
    let end = d.iter().take(256).position(|&b| b == b'\n')?;
    let line = d.get(..end)?;
    Some(line.strip_suffix(b"\r").unwrap_or(line))
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    let Some(line) = first_line(cx.data) else {
        return Probe::NotForUs;
    };
    let mut words = line.split(|&b| b == b' ').filter(|w| !w.is_empty());
    let (Some(first), Some(id)) = (words.next(), words.next()) else {
        return Probe::NotForUs;
    };
    if VERBS.iter().any(|v| v.eq_ignore_ascii_case(first)) {
        let (Some(endpoint), Some(proto), Some(version)) = (words.next(), words.next(), words.next())
        else {
            return Probe::NotForUs;
        };
        let Some(at) = endpoint.iter().position(|&b| b == b'@') else {
            return Probe::NotForUs;
        };
        if !txid(id) || !proto.eq_ignore_ascii_case(b"MGCP") || !matches!(version, b"1.0" | b"0.1") {
            return Probe::NotForUs;
        }
        let domain = endpoint.get(at + 1..).unwrap_or_default();
        if !domain.is_empty() && domain.iter().all(|b| b.is_ascii_graphic()) {
            cx.set(Field::Sni, domain);
        }
        return Probe::Certain(&LABEL);
    }
    // A response: "200 1234 OK".
    let code = first.len() == 3 && first.iter().all(u8::is_ascii_digit);
    if code && txid(id) && (cx.hints.port(2427) || cx.hints.port(2727)) {
        return Probe::Certain(&LABEL);
    }
    Probe::NotForUs
}

#[cfg(test)]
mod tests;
