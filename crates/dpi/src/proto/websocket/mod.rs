//! WebSocket frames seen without their HTTP handshake (a capture that starts mid-connection;
//! a flow that shows the `Upgrade: websocket` request is HTTP's, as nDPI names it). RFC 6455
//! section 5.2: a final frame (FIN set, RSV bits clear) of type text, binary, close, ping or pong,
//! a 7-bit length (126 and 127 announce 16- and 64-bit lengths), an optional 4-byte mask; the
//! segment must hold exactly one or more whole frames. A text frame whose (unmasked) payload is
//! printable UTF-8 names the flow; other frames only keep the inspector asking, and a second
//! packet of well-formed frames then names it (any packet that is not frames rules it out).

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP};

/// nDPI's WebSocket label.
pub static LABEL: Label = label("WebSocket", "Web");

/// The WebSocket inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "websocket",
    transports: TCP,
    ports: &[],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

/// Frames walked in one segment.
const MAX_FRAMES: usize = 8;

/// What a segment of frames shows.
#[derive(PartialEq, Eq)]
enum Seen {
    /// Not whole well-formed frames.
    Bad,
    /// Frames, none of them readable text.
    Frames,
    /// Frames, one of them a text frame of printable UTF-8.
    Text,
}

/// Printable UTF-8 text (tabs and line ends allowed), at least 2 bytes.
fn text(p: &[u8]) -> bool {
    p.len() >= 2
        && std::str::from_utf8(p)
            .is_ok_and(|s| s.chars().all(|c| !c.is_control() || matches!(c, '\t' | '\r' | '\n')))
}

fn frames(d: &[u8]) -> Seen {
    let mut at = 0usize;
    let mut seen = Seen::Frames;
    let mut buf = [0u8; 256];
    for _ in 0..MAX_FRAMES {
        let (Some(&b0), Some(&b1)) = (d.get(at), d.get(at + 1)) else {
            return Seen::Bad;
        };
        let op = b0 & 0x0f;
        if b0 & 0xf0 != 0x80 || !matches!(op, 1 | 2 | 8 | 9 | 10) {
            return Seen::Bad;
        }
        let (len, ext) = match b1 & 0x7f {
            126 => match d.get(at + 2..at + 4) {
                Some(l) => (u64::from(u16::from_be_bytes([l[0], l[1]])), 2),
                None => return Seen::Bad,
            },
            127 => match d.get(at + 2..at + 10).and_then(|l| l.try_into().ok()) {
                Some(l) => (u64::from_be_bytes(l), 8),
                None => return Seen::Bad,
            },
            n => (u64::from(n), 0),
        };
        // Control frames carry at most 125 bytes; extended lengths must be needed.
        if (op >= 8 && len > 125) || (ext == 2 && len < 126) || (ext == 8 && len <= 0xffff) {
            return Seen::Bad;
        }
        let mask = d.get(at + 2 + ext..at + 6 + ext).filter(|_| b1 & 0x80 != 0);
        let start = at + 2 + ext + if b1 & 0x80 != 0 { 4 } else { 0 };
        let Some(end) = usize::try_from(len).ok().and_then(|l| start.checked_add(l)) else {
            return Seen::Bad;
        };
        let Some(payload) = d.get(start..end) else {
            return Seen::Bad;
        };
        if op == 1 && payload.len() <= buf.len() {
            let out = &mut buf[..payload.len()];
            for (i, (o, &p)) in out.iter_mut().zip(payload).enumerate() {
                *o = p ^ mask.map_or(0, |m| m[i % 4]);
            }
            if text(out) {
                seen = Seen::Text;
            }
        }
        at = end;
        if at == d.len() {
            return seen;
        }
    }
    Seen::Bad
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    match frames(cx.data) {
        Seen::Bad => Probe::NotForUs,
        Seen::Text => Probe::Certain(&LABEL),
        // A first packet of frames that say little: wait for the next one. Being asked again
        // means every earlier packet was frames too.
        Seen::Frames if cx.hints.nth == 0 && cx.hints.dir == crate::Dir::ToServer => Probe::Unsure,
        Seen::Frames => Probe::Certain(&LABEL),
    }
}

#[cfg(test)]
mod tests;
