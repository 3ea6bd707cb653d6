//! NoMachine NX. Over TCP a session opens with a one-line banner before its TLS handshake: the
//! client's `NXSH-<version>` and the server's `NXD-<version>` (a version starting with a digit, then
//! an end of line). Its UDP media channel (port 4000) carries a little-endian header whose field at
//! offset 2 is 1, field at offset 4 the datagram's length and field at offset 8 zero; that is
//! too little to trust off port 4000, so UDP is only looked at there.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP, UDP};

/// nDPI's NoMachine label.
pub static LABEL: Label = label("NoMachine", "RemoteAccess");

/// The NoMachine inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "nomachine",
    transports: TCP | UDP,
    ports: &[4000],
    labels: &[&LABEL],
    min_udp: 10,
    ports_required: false,
    probe,
};

/// `NXSH-1.2.3\n` or `NXD-1.2.3\r\n`.
fn banner(d: &[u8]) -> bool {
    let Some(v) = d.strip_prefix(b"NXSH-").or_else(|| d.strip_prefix(b"NXD-")) else {
        return false;
    };
    let v = v
        .strip_suffix(b"\r\n")
        .or_else(|| v.strip_suffix(b"\n"))
        .unwrap_or(v);
    (1..=16).contains(&v.len())
        && v.first().is_some_and(u8::is_ascii_digit)
        && v
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_'))
}

/// The UDP media header.
fn media(d: &[u8]) -> bool {
    let le = |at: usize| d.get(at..at + 2).map(|b| u16::from_le_bytes([b[0], b[1]]));
    le(2) == Some(1) && le(4).map(usize::from) == Some(d.len()) && le(8) == Some(0)
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let ok = if cx.hints.transport == TCP {
        banner(d)
    } else {
        cx.hints.port(4000) && media(d)
    };
    if ok {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
