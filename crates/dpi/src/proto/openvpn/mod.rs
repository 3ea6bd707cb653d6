//! OpenVPN: the client opens with a hard-reset control packet (opcode 7, or 10 with
//! tls-crypt-v2; key id 0) and the server answers with its own hard reset (opcode 8). Over TCP
//! each packet is preceded by its two-byte length. One opcode byte is a weak test, so the
//! client's reset only makes the flow a candidate and the server's answer decides.

use crate::proto::label;
use crate::{Cx, Dir, Inspector, Label, Probe, TCP, UDP};

/// nDPI's OpenVPN label.
pub static LABEL: Label = label("OpenVPN", "VPN");

/// The OpenVPN inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "openvpn",
    transports: TCP | UDP,
    ports: &[1194],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

const CLIENT_RESET_V2: u8 = 7 << 3;
const CLIENT_RESET_V3: u8 = 10 << 3;
const SERVER_RESET_V2: u8 = 8 << 3;

fn probe(cx: &mut Cx<'_>) -> Probe {
    let mut d = cx.data;
    if cx.hints.transport == TCP {
        let Some(l) = d.get(..2).map(|l| usize::from(u16::from_be_bytes([l[0], l[1]]))) else {
            return Probe::NotForUs;
        };
        if l + 2 != d.len() {
            return Probe::NotForUs;
        }
        d = d.get(2..).unwrap_or(&[]);
    }
    // Opcode and key id, session id (8 bytes), then the rest of a control packet.
    let Some(&op) = d.first() else {
        return Probe::NotForUs;
    };
    if d.len() < 14 || d.len() > 1500 {
        return Probe::NotForUs;
    }
    match (cx.hints.dir, op) {
        (Dir::ToServer, CLIENT_RESET_V2 | CLIENT_RESET_V3) if cx.hints.nth < 4 => Probe::Unsure,
        (Dir::ToClient, SERVER_RESET_V2) if cx.hints.nth == 0 => Probe::Certain(&LABEL),
        _ => Probe::NotForUs,
    }
}

#[cfg(test)]
mod tests;

