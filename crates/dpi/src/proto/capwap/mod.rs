//! CAPWAP (RFC 5415): wireless access points (WTPs) and their controller (AC) talk over UDP
//! 5246 (control) and 5247 (data). Every packet opens with a preamble byte: version 0 and type
//! 0 (a CAPWAP header follows) or 1 (a DTLS record follows, after 3 reserved bytes).
//!
//! * The CAPWAP header (section 4.3) gives its own length in 4-byte words (HLEN, at least 2,
//!   within the packet), and, with the M bit, a radio MAC address of 6 or 8 bytes.
//! * On the control port, the control header after it (section 4.5.1: message type, sequence
//!   number, a message element length counting the bytes after the sequence number, flags)
//!   must end exactly with the datagram, unless the packet is a fragment (F bit).
//! * On the data port, a keep-alive (K bit, section 4.4.1) holds a message element length that
//!   ends with the datagram, or opens with the Session ID element; a data packet carries an 802.11 frame (T bit, WBID 1, frame
//!   control version 0, in either byte order) or an 802.3 frame (at least 14 bytes).
//! * A DTLS-protected packet holds whole DTLS records (content type 20-25, version 0xFEFF,
//!   0xFEFD or 0xFEFC) that end with the datagram.
//!
//! Only the CAPWAP flow itself is named. The data channel's 802.3 frames and 802.11 data frames
//! are followed by the decoder (`wirespeed_wire`, tunnel `CAPWAP`), so their inner flows never
//! reach this inspector; what does is the control channel and the data packets the decoder
//! leaves as the outer flow (keep-alives, DTLS, fragments, frames without an LLC/SNAP body).

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, UDP};

/// nDPI's CAPWAP label.
pub static LABEL: Label = label("CAPWAP", "Network");

/// The CAPWAP inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "capwap",
    transports: UDP,
    ports: &[CONTROL, DATA],
    labels: &[&LABEL],
    min_udp: 8,
    ports_required: true,
    probe,
};

const CONTROL: u16 = 5246;
const DATA: u16 = 5247;

fn probe(cx: &mut Cx<'_>) -> Probe {
    let h = cx.hints;
    let control = h.port(CONTROL);
    if !control && !h.port(DATA) {
        return Probe::NotForUs;
    }
    let verdict = match cx.data.first() {
        Some(0x00) => plain(cx.data, control),
        Some(0x01) => Some(dtls(cx.data)),
        _ => Some(false),
    };
    match verdict {
        Some(true) => Probe::Certain(&LABEL),
        // A fragment: the headers were sane; the next datagram decides.
        None if h.nth < 3 => Probe::Unsure,
        _ => Probe::NotForUs,
    }
}

/// A packet with a plain CAPWAP header: Some(verdict), or None for a sane fragment whose
/// length cannot be checked.
fn plain(d: &[u8], control: bool) -> Option<bool> {
    let (Some(&b1), Some(&b2), Some(&b3)) = (d.get(1), d.get(2), d.get(3)) else {
        return Some(false);
    };
    let hlen = usize::from(b1 >> 3) * 4;
    let wbid = (b2 >> 1) & 0x1f;
    let (t, f, w, m, k) = (
        b2 & 1 != 0,
        b3 & 0x80 != 0,
        b3 & 0x20 != 0,
        b3 & 0x10 != 0,
        b3 & 0x08 != 0,
    );
    if hlen < 8 || hlen > d.len() || wbid > 3 {
        return Some(false);
    }
    // Optional fields after the 8 fixed bytes, each a length byte and its value padded to
    // 4 bytes: the radio MAC address (M, EUI-48 or EUI-64), then wireless information (W).
    let mut at = 8;
    for (present, mac) in [(m, true), (w, false)] {
        if !present {
            continue;
        }
        let Some(&n) = d.get(at) else {
            return Some(false);
        };
        let ok = if mac { n == 6 || n == 8 } else { n >= 1 };
        at += (1 + usize::from(n)).div_ceil(4) * 4;
        if !ok || at > hlen {
            return Some(false);
        }
    }
    let body = d.get(hlen..).unwrap_or(&[]);
    if control {
        if f {
            return None;
        }
        // The flags byte after the length should be 0 but is not tested, as RFC 5415 asks.
        let (Some(l), true) = (body.get(5..7), body.len() >= 8) else {
            return Some(false);
        };
        let elems = usize::from(u16::from_be_bytes([l[0], l[1]]));
        return Some(hlen + 5 + elems == d.len());
    }
    if k {
        let Some(l) = body.get(..2) else {
            return Some(false);
        };
        let elems = usize::from(u16::from_be_bytes([l[0], l[1]]));
        // Either the element length ends the datagram, or the Session ID element (type 35,
        // 16 bytes) opens the elements, for senders that count the length field differently.
        let session = body.get(2..6) == Some(&[0, 35, 0, 16]);
        return Some(!t && (hlen + 2 + elems == d.len() || session));
    }
    if f {
        return None;
    }
    // 802.11 frame control: version 0, type not 3. Cisco access points send its two bytes
    // swapped (capwap_data.pcapng), so either byte may hold it.
    let fc = |b: Option<&u8>| b.is_some_and(|fc| fc & 0x03 == 0 && fc & 0x0c != 0x0c);
    Some(if t {
        wbid == 1 && body.len() >= 10 && (fc(body.first()) || fc(body.get(1)))
    } else {
        body.len() >= 14
    })
}

/// A DTLS-protected CAPWAP packet: zero reserved bytes, then whole DTLS records.
fn dtls(d: &[u8]) -> bool {
    if d.get(1..4) != Some(&[0, 0, 0]) {
        return false;
    }
    let mut at = 4;
    // A datagram holds a handful of records (one flight); the cap is a guard.
    for _ in 0..32 {
        let (Some(&ct), Some(&[0xfe, minor]), Some(l)) =
            (d.get(at), d.get(at + 1..at + 3), d.get(at + 11..at + 13))
        else {
            return false;
        };
        if !(20..=25).contains(&ct) || !matches!(minor, 0xff | 0xfd | 0xfc) {
            return false;
        }
        at += 13 + usize::from(u16::from_be_bytes([l[0], l[1]]));
        if at >= d.len() {
            return at == d.len();
        }
    }
    false
}

#[cfg(test)]
mod tests;
