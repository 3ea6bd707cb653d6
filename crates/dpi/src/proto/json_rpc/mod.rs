//! JSON-RPC 2.0 directly over TCP (nDPI's JSON-RPC): requests and responses are JSON objects
//! (or arrays of them, for a batch) carrying the member `"jsonrpc": "2.0"`, with `"method"` in a
//! request and `"result"` or `"error"` in a response (JSON-RPC 2.0 Specification, §4 "Request
//! object", §5 "Response object", §6 "Batch"), commonly one per line. JSON-RPC inside HTTP is
//! the HTTP inspector's flow (nDPI names it `HTTP.JSON-RPC`) and is not handled here.
//!
//! Checked, in the segment's first 4 KiB: JSON text only (no control bytes other than white
//! space), an opening `{` (or `[` then `{`) after optional white space, the member name
//! `"jsonrpc"` followed by `:` and the string `"2.0"`, and a member name `"method"`,
//! `"result"` or `"error"` followed by `:`.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP};

/// nDPI's JSON-RPC label.
pub static LABEL: Label = label("JSON-RPC", "RPC");

/// The JSON-RPC inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "json_rpc",
    transports: TCP,
    ports: &[],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

/// Bytes of the segment looked at.
const WINDOW: usize = 4096;

fn ws(d: &[u8]) -> &[u8] {
    let n = d.iter().take_while(|c| matches!(c, b' ' | b'\t' | b'\r' | b'\n')).count();
    &d[n..]
}

/// After each occurrence of the member name `key` (quoted), what follows its `:`.
fn values<'a>(d: &'a [u8], key: &'a [u8]) -> impl Iterator<Item = &'a [u8]> + 'a {
    d.windows(key.len())
        .enumerate()
        .filter(move |(_, w)| *w == key)
        .filter_map(move |(i, _)| ws(&d[i + key.len()..]).strip_prefix(b":"))
        .map(ws)
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = &cx.data[..cx.data.len().min(WINDOW)];
    // The cheap test first: most segments do not open with a JSON object.
    let start = ws(d);
    let object = match start.first() {
        Some(b'{') => true,
        Some(b'[') => ws(&start[1..]).first() == Some(&b'{'),
        _ => false,
    };
    if !object || !d.iter().all(|&c| c >= 0x20 || matches!(c, b'\t' | b'\r' | b'\n')) {
        return Probe::NotForUs;
    }
    let version = values(d, b"\"jsonrpc\"").any(|v| v.starts_with(b"\"2.0\""));
    let kind = [&b"\"method\""[..], b"\"result\"", b"\"error\""]
        .iter()
        .any(|k| values(d, k).next().is_some());
    if version && kind {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
