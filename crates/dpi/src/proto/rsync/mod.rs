//! rsync daemon protocol (nDPI's RSYNC): a connection to `rsync --daemon` (TCP 873) opens with
//! each side sending the greeting `@RSYNCD: <major>.<minor>` and, from protocol 30 on, a list of
//! supported checksum digests, ended by a newline (rsync's `rsyncd.conf(5)`/`rsync(1)` "CONNECTING
//! TO AN RSYNC DAEMON", and the daemon's `exchange_protocols` as documented in the rsync
//! technical report). Client and server send the same greeting, so either direction is claimed.
//!
//! Checked: the literal `@RSYNCD: `, a protocol version of one to three digits, a dot, one to
//! three digits, then either the newline or a space and a printable word list up to the newline,
//! with the newline ending the segment. Later daemon lines (`@RSYNCD: OK`, `AUTHREQD`, `EXIT`)
//! are not first messages and are not matched.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP};

/// nDPI's RSYNC label.
pub static LABEL: Label = label("RSYNC", "DataTransfer");

/// The rsync inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "rsync",
    transports: TCP,
    ports: &[873],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

const MAGIC: &[u8] = b"@RSYNCD: ";

/// The longest greeting accepted (version and a digest list); longer is not a greeting.
const MAX_GREETING: usize = 256;

fn probe(cx: &mut Cx<'_>) -> Probe {
    if greeting(cx.data) {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

/// Digits at the start of `d`: how many (at most `max`, at least one) or `None`.
fn digits(d: &[u8], max: usize) -> Option<usize> {
    let n = d.iter().take(max + 1).take_while(|c| c.is_ascii_digit()).count();
    (1..=max).contains(&n).then_some(n)
}

/// Is `d` exactly one `@RSYNCD: M.m[ digests]\n` line?
pub(crate) fn greeting(d: &[u8]) -> bool {
    let Some(rest) = d.strip_prefix(MAGIC) else {
        return false;
    };
    if d.len() > MAX_GREETING || !d.ends_with(b"\n") {
        return false;
    }
    let Some(major) = digits(rest, 3) else {
        return false;
    };
    let Some(rest) = rest.get(major..).and_then(|r| r.strip_prefix(b".")) else {
        return false;
    };
    let Some(minor) = digits(rest, 3) else {
        return false;
    };
    match rest.get(minor..) {
        Some(b"\n") => true,
        Some([b' ', list @ .., b'\n']) => {
            !list.is_empty() && list.iter().all(|&c| c.is_ascii_graphic() || c == b' ')
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests;
