//! SIP (RFC 3261) over UDP and TCP: a request line `METHOD sip:... SIP/2.0` or a status line
//! `SIP/2.0 NNN`; the User-Agent (or Server) header is kept.

use crate::proto::label;
use crate::{Cx, Field, Inspector, Label, Probe, TCP, UDP};

/// nDPI's SIP label.
pub static LABEL: Label = label("SIP", "VoIP");

/// The SIP inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "sip",
    transports: TCP | UDP,
    ports: &[5060, 5061],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

const METHODS: &[&[u8]] = &[
    b"INVITE ",
    b"REGISTER ",
    b"ACK ",
    b"BYE ",
    b"CANCEL ",
    b"OPTIONS ",
    b"SUBSCRIBE ",
    b"NOTIFY ",
    b"MESSAGE ",
    b"INFO ",
    b"PRACK ",
    b"UPDATE ",
    b"REFER ",
    b"PUBLISH ",
];

/// The value of header `name` (with its colon, any case) in `head`.
fn header<'a>(head: &'a [u8], name: &[u8]) -> Option<&'a [u8]> {
    let at = head
        .windows(name.len() + 2)
        .position(|w| w.starts_with(b"\r\n") && w[2..].eq_ignore_ascii_case(name))?;
    let v = head.get(at + 2 + name.len()..)?;
    let v = v.get(v.iter().take_while(|&&b| b == b' ').count()..)?;
    let end = v.iter().position(|&b| b == b'\r').unwrap_or(v.len());
    v.get(..end)
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    // Cheap test first: a status line or a known method (most payloads stop here).
    let status_start = d.starts_with(b"SIP/2.0 ");
    if !status_start && !METHODS.iter().any(|m| d.starts_with(m)) {
        return Probe::NotForUs;
    }
    let head = d.get(..d.len().min(1500)).unwrap_or(&[]);
    let Some(line) = head
        .windows(2)
        .position(|w| w == b"\r\n")
        .and_then(|e| head.get(..e))
    else {
        return Probe::NotForUs;
    };
    let status = status_start && line.get(8..11).is_some_and(|c| c.iter().all(u8::is_ascii_digit));
    let request = METHODS.iter().any(|m| line.starts_with(m))
        && line.ends_with(b" SIP/2.0")
        && (line.windows(5).any(|w| w.eq_ignore_ascii_case(b" sip:"))
            || line.windows(6).any(|w| w.eq_ignore_ascii_case(b" sips:"))
            || line.windows(5).any(|w| w.eq_ignore_ascii_case(b" tel:")));
    if !(status || request) {
        return Probe::NotForUs;
    }
    if let Some(ua) = header(head, b"user-agent:").or_else(|| header(head, b"server:")) {
        cx.set(Field::UserAgent, ua);
    }
    Probe::Certain(&LABEL)
}

#[cfg(test)]
mod tests;

