//! Gearman job-server protocol (nDPI's Gearman), TCP 4730. Binary packets (gearman.org,
//! "Protocol", section "Binary Packet") have a 12-byte header: the magic `\0REQ` (client or
//! worker to server) or `\0RES` (server to them), a big-endian 32-bit packet type, and a
//! big-endian 32-bit size of the data that follows; arguments in the data are NUL-separated.
//! The administrative text protocol on the same port is not matched.
//!
//! Checked: the magic, a packet type among the defined ones (1 to 42), and a size that fits the
//! segment: header plus size equals the payload, or leaves room for further whole headers
//! (several packets in one segment), or, for a packet cut across segments, exceeds it by at
//! most 64 KiB.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP};

/// nDPI's Gearman label.
pub static LABEL: Label = label("Gearman", "RPC");

/// The Gearman inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "gearman",
    transports: TCP,
    ports: &[4730],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

/// Highest packet type the protocol document defines (SUBMIT_REDUCE_JOB_BACKGROUND = 42).
const MAX_TYPE: u32 = 42;
/// Largest data size accepted for a packet that continues past this segment.
const MAX_SPILL: usize = 64 * 1024;

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let mut at = 0usize;
    // A few packets in one segment: each header is checked, at most 8.
    for _ in 0..8 {
        let Some(h) = d.get(at..at + 12) else {
            return Probe::NotForUs;
        };
        if &h[..4] != b"\0REQ" && &h[..4] != b"\0RES" {
            return Probe::NotForUs;
        }
        let ty = u32::from_be_bytes([h[4], h[5], h[6], h[7]]);
        let size = u32::from_be_bytes([h[8], h[9], h[10], h[11]]) as usize;
        if ty == 0 || ty > MAX_TYPE {
            return Probe::NotForUs;
        }
        let end = at + 12 + size.min(MAX_SPILL + d.len());
        if end == d.len() {
            return Probe::Certain(&LABEL);
        }
        if end > d.len() {
            return if size <= MAX_SPILL {
                Probe::Certain(&LABEL)
            } else {
                Probe::NotForUs
            };
        }
        at = end;
    }
    Probe::Certain(&LABEL)
}

#[cfg(test)]
mod tests;
