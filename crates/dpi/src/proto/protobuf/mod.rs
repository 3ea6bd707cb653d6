//! Protocol Buffers on the wire (protobuf.dev, "Encoding"): a message is a run of fields, each
//! a varint tag (field number << 3 | wire type) and a value whose size the wire type gives —
//! VARINT (0), I64 (1: 8 bytes), LEN (2: a varint length, then that many bytes), I32 (5: 4
//! bytes); the group types 3 and 4 are deprecated and taken as not protobuf. There is no magic
//! number, so, as in nDPI, the test is structural and needs either a long well-formed run in one
//! packet (8 fields, one of them LEN) or short well-formed runs over four packets of a
//! direction. Any port, tried after every other inspector; TCP only: over UDP the structural
//! test also fits RTP audio (false_positives.pcapng: A-law silence walks as ten I32 and LEN
//! fields), which nDPI names RTP.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP};

/// nDPI's Protobuf label.
pub static LABEL: Label = label("Protobuf", "Network");

/// The Protocol Buffers inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "protobuf",
    transports: TCP,
    ports: &[],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

/// Fields read from one packet at most.
const MAX_FIELDS: usize = 32;
/// Fields in one packet that prove it (with at least one LEN field).
const PROOF_FIELDS: usize = 8;
/// Fields a packet needs once `PROOF_NTH` earlier packets of its direction were seen.
const MIN_FIELDS: usize = 2;
/// Payload packets of a direction before this one that make short runs enough (the 4th).
const PROOF_NTH: u8 = 3;

/// A varint (at most 10 bytes); `None` when it runs past the end or is longer.
fn varint(d: &[u8], at: &mut usize) -> Option<u64> {
    let mut v = 0u64;
    for i in 0..10 {
        let b = *d.get(*at + i)?;
        v |= u64::from(b & 0x7f) << (7 * i);
        if b & 0x80 == 0 {
            *at += i + 1;
            return Some(v);
        }
    }
    None
}

/// What a walk over one packet found.
#[derive(Debug, PartialEq, Eq)]
struct Walk {
    /// Well-formed fields read.
    fields: usize,
    /// Of which LEN fields.
    len_fields: usize,
    /// A field's value runs past the packet (a message continued in the next one).
    overrun: bool,
}

/// Walk the fields at the start of `d`; `None` when a field is malformed (field number 0, a
/// group or unknown wire type, a fixed-size value cut short, an empty or absurd length).
fn walk(d: &[u8]) -> Option<Walk> {
    let mut w = Walk {
        fields: 0,
        len_fields: 0,
        overrun: false,
    };
    let mut at = 0usize;
    while w.fields < MAX_FIELDS && at < d.len() {
        let Some(tag) = varint(d, &mut at) else {
            // A tag cut by the end of the packet: nothing wrong so far.
            break;
        };
        let field = tag >> 3;
        if field == 0 || field > u64::from(u32::MAX >> 3) {
            return None;
        }
        match tag & 7 {
            0 => {
                varint(d, &mut at)?;
            }
            1 | 5 => {
                let n = if tag & 7 == 1 { 8 } else { 4 };
                if d.len() - at < n {
                    return None;
                }
                at += n;
            }
            2 => {
                let Some(len) = varint(d, &mut at) else {
                    break;
                };
                if len == 0 || len > i32::MAX as u64 {
                    return None;
                }
                w.len_fields += 1;
                let left = (d.len() - at) as u64;
                if len > left {
                    w.fields += 1;
                    w.overrun = true;
                    return Some(w);
                }
                at += len as usize;
            }
            _ => return None,
        }
        w.fields += 1;
    }
    Some(w)
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    let Some(w) = walk(cx.data) else {
        return Probe::NotForUs;
    };
    if (w.fields >= PROOF_FIELDS && w.len_fields > 0)
        || (cx.hints.nth >= PROOF_NTH && w.fields >= MIN_FIELDS)
    {
        return Probe::Certain(&LABEL);
    }
    if w.fields > 0 && !w.overrun {
        Probe::Unsure
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
