//! HL7 version 2 messages (nDPI's HL7) over TCP with the Minimal Lower Layer Protocol framing:
//! a block is `0x0B`, the message, `0x1C 0x0D` (HL7 v2.x Implementation Guide, Appendix C.4
//! "Minimal Lower Layer Protocol"). Every message opens with its MSH segment: `MSH`, the field
//! separator (conventionally `|`), then the encoding characters (component, repetition, escape,
//! subcomponent, and from v2.7 truncation; conventionally `^~\&`) and the field separator again
//! (HL7 v2.5 §2.14.9 "MSH - message header segment", MSH-1 and MSH-2). Usual port: 2575 (IANA
//! `hl7`).
//!
//! Checked: the start-block byte, `MSH`, a field separator that is printable and neither a letter,
//! a digit nor a space, four or five distinct encoding characters of the same kind, the separator
//! again, and, when the block ends in this segment, the `0x1C 0x0D` trailer.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP};

/// nDPI's HL7 label.
pub static LABEL: Label = label("HL7", "Health");

/// The HL7 inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "hl7",
    transports: TCP,
    ports: &[2575],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn delimiter(c: u8) -> bool {
    c.is_ascii_punctuation()
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let (Some(b"\x0bMSH"), Some(&sep)) = (d.get(..4), d.get(4)) else {
        return Probe::NotForUs;
    };
    if !delimiter(sep) {
        return Probe::NotForUs;
    }
    // MSH-2: four (or five) encoding characters up to the next field separator.
    let Some(enc) = d.get(5..11) else {
        return Probe::NotForUs;
    };
    let n = enc.iter().take_while(|&&c| c != sep).count();
    if !(4..=5).contains(&n) || enc.get(n) != Some(&sep) {
        return Probe::NotForUs;
    }
    let chars = &enc[..n];
    let distinct = chars.iter().enumerate().all(|(i, c)| !chars[..i].contains(c));
    if !chars.iter().all(|&c| delimiter(c)) || !distinct {
        return Probe::NotForUs;
    }
    // A block that ends here ends with the trailer (a longer one continues in later segments).
    if let Some(fs) = d.iter().position(|&c| c == 0x1c) {
        if d.get(fs + 1) != Some(&0x0d) {
            return Probe::NotForUs;
        }
    }
    Probe::Certain(&LABEL)
}

#[cfg(test)]
mod tests;
