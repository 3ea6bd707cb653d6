//! Z39.50 (ANSI/NISO Z39.50-2003, ASN.1 in BER): a session opens with an InitRequest
//! (`[20] IMPLICIT SEQUENCE`, identifier 0xB4) answered by an InitResponse (`[21]`, 0xB5). The
//! PDU must fill the segment, and its fields must be InitRequest/InitResponse fields in
//! definite-length BER, by context tag: referenceId 2, protocolVersion 3, options 4,
//! preferredMessageSize 5, exceptionalRecordSize 6, idAuthentication 7, userInformationField 11,
//! result 12 (response only), implementationId/Name/Version 110-112 and otherInfo 201; the
//! protocolVersion, options and both sizes are required.

use crate::ber;
use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP};

/// nDPI's Z3950 label.
pub static LABEL: Label = label("Z3950", "Network");

/// The Z39.50 inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "z3950",
    transports: TCP,
    ports: &[210],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

/// Fields read from an Init PDU.
const MAX_FIELDS: usize = 24;

/// The identifier at the start of `d` as (class and constructed bits, tag number, octets).
fn ident(d: &[u8]) -> Option<(u8, u32, usize)> {
    let b = *d.first()?;
    if b & 0x1f != 0x1f {
        return Some((b & 0xe0, u32::from(b & 0x1f), 1));
    }
    let mut n = 0u32;
    for i in 1..4 {
        let c = *d.get(i)?;
        n = (n << 7) | u32::from(c & 0x7f);
        if c & 0x80 == 0 {
            return Some((b & 0xe0, n, i + 1));
        }
    }
    None
}

/// Does `content` hold exactly the fields of an Init PDU (response adds `result`)?
fn init_fields(mut content: &[u8], response: bool) -> bool {
    let mut seen = 0u32;
    for _ in 0..MAX_FIELDS {
        if content.is_empty() {
            // protocolVersion, options, preferredMessageSize, exceptionalRecordSize.
            let need = 0b1111 << 3;
            return seen & need == need && (!response || seen & 1 << 12 != 0);
        }
        let Some((class, tag, n)) = ident(content) else {
            return false;
        };
        let Some((len, m)) = ber::len(content, n) else {
            return false;
        };
        let Some(rest) = content.get(n + m + len..) else {
            return false;
        };
        // Context-specific class only; [7], [11] and [201] are constructed, the rest primitive.
        let constructed = class & 0x20 != 0;
        let ok = class & 0xc0 == 0x80
            && match tag {
                2..=6 | 110..=112 => !constructed,
                12 => !constructed && response,
                7 | 11 | 201 => constructed,
                _ => false,
            };
        if !ok {
            return false;
        }
        if tag < 32 {
            seen |= 1 << tag;
        }
        content = rest;
    }
    false
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let response = match d.first() {
        Some(0xb4) => false,
        Some(0xb5) => true,
        _ => return Probe::NotForUs,
    };
    let Some((len, m)) = ber::len(d, 1) else {
        return Probe::NotForUs;
    };
    match d.get(1 + m..) {
        Some(c) if c.len() == len && init_fields(c, response) => Probe::Certain(&LABEL),
        _ => Probe::NotForUs,
    }
}

#[cfg(test)]
mod tests;
