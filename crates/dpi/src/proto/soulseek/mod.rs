//! Soulseek (nDPI's Soulseek): the file-sharing network's TCP messages as a connection opens.
//!
//! Reference: the Soulseek protocol documentation kept by Nicotine+ (SLSKPROTOCOL.md: "Packing"
//! — u32 little-endian lengths, strings as a u32 length and bytes; "Server Messages" code 1
//! Login; "Peer Init Messages" code 1 PeerInit). Every message is a u32 length of what follows,
//! then a code (u32 for server and peer messages, u8 for peer-init messages).
//!
//! Checked, the length covering the segment exactly in both:
//! * Login (client to server): code 1, a printable username of 1-64 bytes, a password, the
//!   client version, then (newer clients) a 32-hex-digit MD5 and the minor version; nothing
//!   left over.
//! * PeerInit (first message between peers): code 1 as a byte, a printable username, a
//!   one-letter connection type `P`, `F` or `D`, a u32 token; nothing left over.
//!
//! PierceFirewall (9 bytes: length 5, code 0, token) has too little structure to name alone.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP};

/// nDPI's Soulseek label.
pub static LABEL: Label = label("Soulseek", "Download");

/// The Soulseek inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "soulseek",
    transports: TCP,
    ports: &[2242, 2234],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

/// Usernames are short (the server limits them to 30 characters).
const MAX_NAME: usize = 64;
const MAX_PASSWORD: usize = 256;

/// A reader over a message body.
struct Rd<'a>(&'a [u8]);

impl<'a> Rd<'a> {
    fn u32(&mut self) -> Option<u32> {
        let (b, rest) = self.0.split_first_chunk::<4>()?;
        self.0 = rest;
        Some(u32::from_le_bytes(*b))
    }
    fn string(&mut self, max: usize) -> Option<&'a [u8]> {
        let n = self.u32()? as usize;
        if n > max {
            return None;
        }
        let (s, rest) = self.0.split_at_checked(n)?;
        self.0 = rest;
        Some(s)
    }
}

fn name_ok(s: &[u8]) -> bool {
    !s.is_empty() && s.iter().all(|&b| b >= 0x20 && b != 0x7f)
}

fn login(body: &[u8]) -> bool {
    let mut r = Rd(body);
    if r.u32() != Some(1) || !r.string(MAX_NAME).is_some_and(name_ok) {
        return false;
    }
    if r.string(MAX_PASSWORD).is_none() || r.u32().is_none() {
        return false;
    }
    if r.0.is_empty() {
        return true; // older clients stop after the version
    }
    let Some(md5) = r.string(32) else {
        return false;
    };
    md5.len() == 32 && md5.iter().all(u8::is_ascii_hexdigit) && r.u32().is_some() && r.0.is_empty()
}

fn peer_init(body: &[u8]) -> bool {
    let Some((&1, rest)) = body.split_first() else {
        return false;
    };
    let mut r = Rd(rest);
    r.string(MAX_NAME).is_some_and(name_ok)
        && matches!(r.string(1), Some(b"P" | b"F" | b"D"))
        && r.u32().is_some()
        && r.0.is_empty()
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let Some((len, body)) = d.split_first_chunk::<4>() else {
        return Probe::NotForUs;
    };
    if u32::from_le_bytes(*len) as usize != body.len() {
        return Probe::NotForUs;
    }
    if login(body) || peer_init(body) {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
