//! ANSI C12.22 (IEEE Std 1703), the transport of utility-meter tables (ANSI C12.19) over IP,
//! TCP or UDP on port 1153. Each message is an ACSE APDU (a BER `[APPLICATION 0]`, tag 0x60)
//! whose elements address the two application processes by AP title and carry the meter
//! service request or response in the user-information element as an EPSEM.
//!
//! No copy of the paid standard was used: the structure is the public one that Wireshark's
//! `c1222` dissector decodes (and IEEE 1703's ASN.1 as it describes), and every vector was
//! checked with tshark. What is checked: the 0x60 APDU whose BER length (short or one/two-byte
//! long form) ends exactly at the end of the segment or datagram; its elements, each a whole BER
//! element in ascending tag order, drawn from the ACSE context tags C12.22 uses (0xA1-0xA9,
//! mechanism name 0x8B, authentication value 0xAC, user information 0xBE); a called or calling
//! AP title (0xA2, 0xA6) holding exactly one OID or relative OID (tags 0x06, 0x0D); and a last
//! element, user information, holding an EXTERNAL (0x28) whose octet-aligned encoding (0x81) is
//! an EPSEM whose control byte has its reserved high bit set, as C12.22 requires.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP, UDP};

/// nDPI's ANSI C12.22 label.
pub static LABEL: Label = label("ANSI_C1222", "IoT-Scada");

/// The ANSI C12.22 inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "ansi_c1222",
    transports: TCP | UDP,
    ports: &[1153],
    labels: &[&LABEL],
    min_udp: 8,
    ports_required: false,
    probe,
};

/// Most elements read in one APDU.
const MAX_ELEMENTS: usize = 16;
/// The user-information element.
const USER_INFO: u8 = 0xbe;

/// The BER element at `at` in `d`: its tag, and the range of its content.
fn element(d: &[u8], at: usize) -> Option<(u8, usize, usize)> {
    let tag = *d.get(at)?;
    let first = *d.get(at + 1)?;
    let (len, start) = match first {
        0..=0x7f => (usize::from(first), at + 2),
        0x81 => (usize::from(*d.get(at + 2)?), at + 3),
        0x82 => (usize::from(u16::from_be_bytes([*d.get(at + 2)?, *d.get(at + 3)?])), at + 4),
        _ => return None,
    };
    let end = start.checked_add(len)?;
    (end <= d.len()).then_some((tag, start, end))
}

/// Is `d` one ANSI C12.22 message?
fn message(d: &[u8]) -> bool {
    let Some((0x60, mut at, end)) = element(d, 0) else {
        return false;
    };
    if end != d.len() {
        return false;
    }
    let mut last_tag = 0u8;
    let mut titled = false;
    for _ in 0..MAX_ELEMENTS {
        let Some((tag, start, next)) = element(d, at) else {
            return false;
        };
        let known = matches!(tag, 0xa1..=0xa9 | 0x8b | 0xac | USER_INFO);
        if !known || tag <= last_tag {
            return false;
        }
        let content = d.get(start..next).unwrap_or_default();
        if matches!(tag, 0xa2 | 0xa6) {
            // An AP title: exactly one universal or relative OID.
            match element(content, 0) {
                Some((0x06 | 0x0d, _, e)) if e == content.len() && e > 2 => titled = true,
                _ => return false,
            }
        }
        if tag == USER_INFO {
            return next == end && titled && epsem(content);
        }
        last_tag = tag;
        at = next;
    }
    false
}

/// Does a user-information element's content hold an EXTERNAL with an octet-aligned EPSEM?
fn epsem(content: &[u8]) -> bool {
    let Some((0x28, mut at, end)) = element(content, 0) else {
        return false;
    };
    // An optional indirect reference (INTEGER) may come before the encoding.
    for _ in 0..2 {
        match element(content, at) {
            Some((0x02, _, next)) => at = next,
            Some((0x81, start, next)) => {
                return next == end && content.get(start).is_some_and(|&c| c & 0x80 != 0);
            }
            _ => return false,
        }
    }
    false
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    Probe::certain_if(message(cx.data), &LABEL)
}

#[cfg(test)]
mod tests;
