//! DICOM upper layer (PS3.8 section 9.3): an association opens with an A-ASSOCIATE-RQ PDU (type
//! 0x01) from the requester, answered by an A-ASSOCIATE-AC (type 0x02). Both have a reserved
//! zero byte, a 32-bit PDU length covering at least the segment, protocol version bit 0 set,
//! two reserved bytes, the called and calling AE titles (16 bytes each, printable characters,
//! PS3.5 section 6.2), 32 reserved bytes and then the Application Context item (0x10).

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP};

/// nDPI's DICOM label.
pub static LABEL: Label = label("DICOM", "Health");

/// The DICOM inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "dicom",
    transports: TCP,
    ports: &[104, 11112],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

/// Offset of the first variable item (the Application Context item).
const ITEMS: usize = 74;

fn probe(cx: &mut Cx<'_>) -> Probe {
    match check(cx.data) {
        Some(true) => Probe::Certain(&LABEL),
        Some(false) => Probe::NotForUs,
        // A good prefix cut by the segment: ask for the following bytes, a few times.
        None if cx.hints.nth < 3 => {
            cx.incomplete();
            Probe::Unsure
        }
        None => Probe::NotForUs,
    }
}

/// Some(true) for an A-ASSOCIATE-RQ/AC header, Some(false) for anything else, None when the
/// bytes seen so far agree but stop before the first item.
fn check(d: &[u8]) -> Option<bool> {
    let ok_prefix = d.iter().take(ITEMS).enumerate().all(|(i, &b)| match i {
        0 => b == 0x01 || b == 0x02,
        1 => b == 0,
        6 => true,
        7 => b & 1 == 1,
        8 | 9 => true,
        10..=41 => (0x20..0x7f).contains(&b),
        _ => true,
    });
    if !ok_prefix {
        return Some(false);
    }
    if let Some(l) = d.get(2..6) {
        let len = u32::from_be_bytes([l[0], l[1], l[2], l[3]]) as usize;
        // The fixed part and an item header at least; the segment holds no more than the PDU.
        if len < ITEMS + 4 - 6 || d.len() > len.saturating_add(6) {
            return Some(false);
        }
    }
    d.get(ITEMS).map(|&item| item == 0x10)
}

#[cfg(test)]
mod tests;
