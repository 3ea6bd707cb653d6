//! RTSP (RFC 2326): requests `METHOD rtsp://... RTSP/1.0` and responses `RTSP/1.0 NNN`; the
//! client's User-Agent is kept.

use crate::proto::label;
use crate::{Cx, Field, Inspector, Label, Probe, TCP, UDP};

/// nDPI's RTSP label.
pub static LABEL: Label = label("RTSP", "Media");

/// The RTSP inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "rtsp",
    transports: TCP | UDP,
    ports: &[554, 8554],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

const METHODS: &[&[u8]] = &[
    b"OPTIONS ",
    b"DESCRIBE ",
    b"SETUP ",
    b"PLAY ",
    b"PAUSE ",
    b"TEARDOWN ",
    b"ANNOUNCE ",
    b"RECORD ",
    b"GET_PARAMETER ",
    b"SET_PARAMETER ",
    b"REDIRECT ",
];

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    // Cheap test first: a status line or a known method (most payloads stop here).
    let status_start = d.starts_with(b"RTSP/");
    if !status_start && !METHODS.iter().any(|m| d.starts_with(m)) {
        return Probe::NotForUs;
    }
    let head = d.get(..d.len().min(1024)).unwrap_or(&[]);
    let line_end = crate::util::find(head, b"\r\n");
    let Some(line) = line_end.and_then(|e| head.get(..e)) else {
        return Probe::NotForUs;
    };
    let status = line.starts_with(b"RTSP/1.0 ") || line.starts_with(b"RTSP/2.0 ");
    let request = METHODS.iter().any(|m| line.starts_with(m))
        && (line.ends_with(b" RTSP/1.0") || line.ends_with(b" RTSP/2.0"));
    if !(status || request) {
        return Probe::NotForUs;
    }
    if request {
        let ua = b"\r\nUser-Agent: ";
        if let Some(at) = head.windows(ua.len()).position(|w| w.eq_ignore_ascii_case(ua)) {
            let v = head.get(at + ua.len()..).unwrap_or(&[]);
            let end = v.iter().position(|&b| b == b'\r').unwrap_or(v.len());
            cx.set(Field::UserAgent, v.get(..end).unwrap_or(&[]));
        }
    }
    Probe::Certain(&LABEL)
}

#[cfg(test)]
mod tests;
