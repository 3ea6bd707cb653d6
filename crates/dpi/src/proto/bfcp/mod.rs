//! BFCP, the Binary Floor Control Protocol (RFC 4582, version 1 over TCP; RFC 8855, version 2,
//! over TCP or UDP): who may speak or share a screen in a conference, next to SIP's media.
//! It has no port of its own (SDP negotiates one), and its 12-byte common header (RFC 8855
//! §5.1) alone is weak: a version (1 or 2), flag and reserved bits, a primitive (1-17), a
//! payload length in 4-byte words (a datagram may not be longer), then a conference id, a
//! transaction id and a user id. So the inspector keeps evidence: the first message's
//! conference id waits in the flow's state, and a second message of the same conference
//! (either direction) claims the flow.

use crate::proto::label;
use crate::util::Rd;
use crate::{Cx, Inspector, Label, Probe, TCP, UDP};

/// nDPI's BFCP label.
pub static LABEL: Label = label("BFCP", "Video");

/// The BFCP inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "bfcp",
    transports: TCP | UDP,
    ports: &[],
    labels: &[&LABEL],
    min_udp: HEADER as u16,
    ports_required: false,
    probe,
};

/// The common header's length.
const HEADER: usize = 12;

/// Per-flow state: the evidence of a first message.
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
struct State {
    /// The conference id of the first message.
    conference: u32,
    /// Messages seen (0: none yet).
    seen: u8,
    /// Padding (kept zero).
    _pad: [u8; 3],
}

/// The conference id of a BFCP message at the start of `d`, if it is one. Over UDP a datagram
/// holds one message: one longer than its declared length is refused, one shorter is taken as
/// cut (a capture's snap length, or a sender's short message: the corpus's bfcp.pcapng has
/// 12-byte messages that declare a 4-byte payload); fragments (flag F) are refused, their
/// length being the fragment's. Over TCP a segment may end inside a message or hold several.
pub(crate) fn message(d: &[u8], udp: bool) -> Option<u32> {
    let mut r = Rd::new(d);
    let (b0, primitive, words, conference, _transaction, _user) =
        (r.u8()?, r.u8()?, r.u16()?, r.u32()?, r.u16()?, r.u16()?);
    let version = b0 >> 5;
    let responder = b0 & 0x10 != 0;
    let fragment = b0 & 0x08 != 0;
    let ok_flags = match version {
        // Version 1 is RFC 4582's, over TCP, but also seen over UDP (the corpus's bfcp.pcapng,
        // as implementations did before RFC 8855 defined version 2 for it); fragments exist
        // only in version 2 over UDP, and a fragment's length is its own, so they are refused.
        1 => !fragment,
        2 => !fragment && (udp || !responder),
        _ => false,
    };
    let len = HEADER + 4 * usize::from(words);
    let fits = !udp || len >= d.len();
    if !ok_flags || b0 & 0x07 != 0 || !(1..=17).contains(&primitive) || !fits {
        return None;
    }
    // The first attribute, when it is there (RFC 8855 §5.2): type 1-18, the M bit, a length of
    // at least its own two bytes that fits the payload.
    if let (true, Some(&t), Some(&alen)) = (words > 0, d.get(HEADER), d.get(HEADER + 1)) {
        if !(1..=18).contains(&(t >> 1)) || alen < 2 || usize::from(alen) > len - HEADER {
            return None;
        }
    }
    Some(conference)
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    let Some(conference) = message(cx.data, cx.hints.transport == UDP) else {
        return Probe::NotForUs;
    };
    let st = cx.state::<State>();
    if st.seen == 0 {
        st.conference = conference;
        st.seen = 1;
        return Probe::Unsure;
    }
    Probe::certain_if(st.conference == conference, &LABEL)
}

#[cfg(test)]
mod tests;
