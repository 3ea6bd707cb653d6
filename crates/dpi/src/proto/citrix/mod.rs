//! Citrix ICA and CGP. An ICA session opens with the 6-byte detect string `ICA\0` behind two
//! 0x7F bytes (0x07 in some clients), which may repeat in one segment; session reliability
//! (CGP, port 2598) opens with `\x1aCGP/01`; and Citrix's TCP proxy names itself
//! `Citrix.TcpProxyService` in its first message.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP};

/// nDPI's Citrix label.
pub static LABEL: Label = label("Citrix", "Network");

/// The Citrix inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "citrix",
    transports: TCP,
    ports: &[1494, 2598],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

/// Bytes searched for the TCP proxy's name.
const SEARCH: usize = 512;

/// One or more copies of an ICA detect string, nothing else.
fn detect_strings(d: &[u8]) -> bool {
    let Some(&lead) = d.first() else {
        return false;
    };
    let one = [lead, lead, b'I', b'C', b'A', 0];
    matches!(lead, 0x07 | 0x7f)
        && d.len().is_multiple_of(6)
        && d.len() <= 6 * 16
        && d.chunks(6).all(|c| c == one)
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let head = d.get(..SEARCH.min(d.len())).unwrap_or_default();
    let proxy = crate::util::contains(head, b"Citrix.TcpProxyService");
    if detect_strings(d) || d.starts_with(b"\x1aCGP/01") || proxy {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
