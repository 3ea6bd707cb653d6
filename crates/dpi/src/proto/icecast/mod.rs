//! Icecast source clients (nDPI's IceCast): a source (an encoder such as ezstream, through
//! libshout) feeding a stream to an Icecast server opens with the `SOURCE` request of the
//! Icecast 2 source protocol (Icecast documentation, "Icecast protocol specification", source
//! client section; libshout's HTTP protocol): `SOURCE /<mount> HTTP/1.0` (or the older
//! `ICE/1.0`), then headers.
//!
//! Checked: the request line exactly (method, a mount point starting with `/` and free of
//! spaces and control bytes, a known version, CRLF). `SOURCE` is no HTTP method, so the
//! HTTP inspector leaves these flows alone. Listener connections are plain HTTP `GET`s
//! answered with `HTTP/1.0 200 OK`, `Server: Icecast ...` and `icy-*` headers. nDPI's check of
//! that Server line only runs while a flow is still unknown, and its HTTP dissector has named
//! the flow on the GET by then, so nDPI reports listeners as HTTP; so do we (the HTTP inspector
//! reads the first response's Content-Type, not its Server line).

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP};

/// nDPI's IceCast label.
pub static LABEL: Label = label("IceCast", "Media");

/// The Icecast inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "icecast",
    transports: TCP,
    ports: &[8000],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

const VERSIONS: [&[u8]; 3] = [b" HTTP/1.0\r\n", b" HTTP/1.1\r\n", b" ICE/1.0\r\n"];
/// A mount point longer than this is not one.
const MAX_MOUNT: usize = 512;

fn probe(cx: &mut Cx<'_>) -> Probe {
    let Some(rest) = cx.data.strip_prefix(b"SOURCE /") else {
        return Probe::NotForUs;
    };
    let Some(end) = rest
        .iter()
        .take(MAX_MOUNT)
        .position(|&b| b <= b' ' || b == 0x7f)
    else {
        return Probe::NotForUs;
    };
    let tail = rest.get(end..).unwrap_or_default();
    if VERSIONS.iter().any(|v| tail.starts_with(v)) {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
