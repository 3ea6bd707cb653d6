//! FLUTE, File Delivery over Unidirectional Transport (RFC 6726): files pushed over UDP,
//! usually multicast, as ALC (RFC 5775) sessions of LCT (RFC 5651) packets. Each file is a
//! transport object; object 0 carries the FDT Instances, XML documents that list the files.
//! nDPI names a flow FLUTE on an FDT Instance packet, and so does this inspector.
//!
//! What is checked, in the LCT header (RFC 5651 §5.1): version 1, the reserved bits zero, a
//! transport session id present (RFC 5775 §2.1 requires one for ALC), a header length that
//! holds the congestion control information, TSI and TOI fields the flags size and does not
//! pass the datagram's end, and header extensions (RFC 5651 §5.2: a HET of 128 or more is one
//! 32-bit word, a smaller one gives its length in words, never 0) that end exactly where the
//! header length says. Then, for the flow to be named, the FDT Instance packet of RFC 6726
//! §3.4.1: TOI 0, the EXT_FDT extension (HET 192) with FLUTE version 1 (RFC 3926) or 2, a
//! codepoint (the FEC Encoding ID, RFC 5775 §5.1) of a scheme whose FEC Payload ID is 32 bits
//! (0 Compact No-Code RFC 5445, 1 Raptor RFC 5053, 2 and 5 Reed-Solomon RFC 5510, 3 and 4 LDPC
//! RFC 5170, 6 RaptorQ RFC 6330), and after that payload id an uncompressed FDT Instance: an XML
//! declaration and an `FDT-Instance` element (RFC 6726 §3.4.2). A packet of another object
//! with a valid header leaves the flow open (a session may send file data before the FDT).

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, UDP};

/// nDPI's FLUTE label.
pub static LABEL: Label = label("FLUTE", "Download");

/// The FLUTE inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "flute",
    transports: UDP,
    ports: &[],
    labels: &[&LABEL],
    min_udp: 16,
    ports_required: false,
    probe,
};

/// EXT_FDT, the FDT Instance header extension (RFC 6726 §3.4.1).
const EXT_FDT: u8 = 192;
/// Most header extensions walked.
const MAX_EXT: usize = 16;
/// How far into the FDT Instance its root element is looked for.
const XML_WINDOW: usize = 256;

/// What an LCT header says.
struct Lct {
    /// Its length in bytes (the payload id follows).
    len: usize,
    /// The codepoint.
    codepoint: u8,
    /// The transport object identifier is there and 0.
    toi_zero: bool,
    /// The FLUTE version of an EXT_FDT extension (0: none).
    fdt_version: u8,
}

/// The LCT header at the start of `d`, if it is a valid one.
fn lct(d: &[u8]) -> Option<Lct> {
    let (&b0, &b1, &words, &codepoint) = (d.first()?, d.get(1)?, d.get(2)?, d.get(3)?);
    let c = usize::from((b0 >> 2) & 3);
    let (s, o, h) = (usize::from(b1 >> 7), usize::from((b1 >> 5) & 3), usize::from((b1 >> 4) & 1));
    let (cci, tsi, toi) = (4 * (c + 1), 4 * s + 2 * h, 4 * o + 2 * h);
    let len = 4 * usize::from(words);
    let fixed = 4 + cci + tsi + toi;
    if b0 >> 4 != 1 || b1 & 0x0c != 0 || tsi == 0 || len < fixed || len > d.len() {
        return None;
    }
    let toi_zero = toi > 0 && d.get(fixed - toi..fixed)?.iter().all(|&b| b == 0);
    let mut at = fixed;
    let mut fdt_version = 0;
    for _ in 0..MAX_EXT {
        if at == len {
            return Some(Lct {
                len,
                codepoint,
                toi_zero,
                fdt_version,
            });
        }
        let het = *d.get(at)?;
        let size = if het >= 128 {
            4
        } else {
            4 * usize::from(*d.get(at + 1)?)
        };
        if het == EXT_FDT {
            // FLUTE version 1 (RFC 3926) or 2 (RFC 6726); no other exists.
            fdt_version = d.get(at + 1)? >> 4;
            if !matches!(fdt_version, 1 | 2) {
                return None;
            }
        }
        if size == 0 || at + size > len {
            return None;
        }
        at += size;
    }
    None
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let Some(h) = lct(d) else {
        return Probe::NotForUs;
    };
    if !h.toi_zero || h.fdt_version == 0 {
        // File data, or an object whose FDT is still to come.
        return Probe::Unsure;
    }
    // The FDT Instance of RFC 6726 §3.4.1 after a 32-bit FEC Payload ID.
    let xml = d.get(h.len + 4..).unwrap_or_default();
    let window = xml.get(..xml.len().min(XML_WINDOW)).unwrap_or_default();
    let ok = h.codepoint <= 6
        && xml.starts_with(b"<?xml")
        && crate::util::contains(window, b"<FDT-Instance");
    Probe::certain_if(ok, &LABEL)
}

#[cfg(test)]
mod tests;
