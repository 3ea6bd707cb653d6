//! Mumble's UDP ping (the "UDP Ping packet" of the Mumble protocol documentation, "Protocol
//! stack (UDP)", legacy format used by server browsers and Murmur 1.2-1.5): the client sends
//! 12 bytes, a zero 32-bit request type and an 8-byte identifier; the server answers 24 bytes,
//! its version (0, major, minor, patch), the echoed identifier, then the current users, the
//! maximum users and the allowed bandwidth (32-bit big-endian each).
//!
//! Checked: a 12-byte request with a zero type waits for the answer (`Unsure`); an answer of
//! exactly 24 bytes with version 1.x (minor and patch below 64), at most as many users as the
//! maximum, a maximum of at most 100000 and a bandwidth of 1 kbit/s to 1 Gbit/s is Mumble.
//! Voice and in-session pings are encrypted (OCB2-AES128) and not recognised; the control
//! channel is TLS over TCP and is named by the TLS inspector.

use crate::proto::label;
use crate::{Cx, Dir, Inspector, Label, Probe, UDP};

/// nDPI's Mumble label.
pub static LABEL: Label = label("Mumble", "VoIP");

/// The Mumble inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "mumble",
    transports: UDP,
    ports: &[64738],
    labels: &[&LABEL],
    min_udp: 12,
    ports_required: false,
    probe,
};

fn be32(d: &[u8], at: usize) -> Option<u32> {
    let b = d.get(at..at.checked_add(4)?)?;
    Some(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    match cx.hints.dir {
        Dir::ToServer if d.len() == 12 && d.get(..4) == Some(&[0, 0, 0, 0]) => Probe::Unsure,
        Dir::ToClient if d.len() == 24 => {
            let (Some(v), Some(users), Some(max), Some(bw)) =
                (d.get(..4), be32(d, 12), be32(d, 16), be32(d, 20))
            else {
                return Probe::NotForUs;
            };
            let version = v[0] == 0 && v[1] == 1 && v[2] < 64 && v[3] < 64;
            if version && users <= max && max <= 100_000 && (1000..=1_000_000_000).contains(&bw) {
                Probe::Certain(&LABEL)
            } else {
                Probe::NotForUs
            }
        }
        _ => Probe::NotForUs,
    }
}

#[cfg(test)]
mod tests;
