//! OpenVPN: the client opens with a hard-reset control packet (opcode 7, or 10 with
//! tls-crypt-v2; key id 0) and the server answers with its own hard reset (opcode 8). Over TCP
//! each packet is preceded by its two-byte length. One opcode byte is a weak test, so a reset
//! only makes the flow a candidate, and either the other side's reset decides, or the next
//! control packet (P_CONTROL_V1, P_ACK_V1) from the same side carrying the same 8-byte session
//! id: every control packet starts with its sender's session id (OpenVPN's protocol notes,
//! ssl_pkt.h), so a capture that holds one direction only (a NAT between two taps) decides too.

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
const CONTROL_V1: u8 = 4 << 3;
const ACK_V1: u8 = 5 << 3;

/// Per-flow state: the reset seen first.
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
struct State {
    /// Its sender's session id.
    sid: [u8; 8],
    /// 1 + its direction (0: none yet).
    dir: u8,
}

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
    let dir = 1 + u8::from(cx.hints.dir == Dir::ToClient);
    let sid = d.get(1..9).unwrap_or(&[]);
    let st = *cx.state::<State>();
    if st.dir == dir && sid == st.sid && matches!(op, CONTROL_V1 | ACK_V1) {
        // The same side's next control packet, under the session id of its reset.
        return Probe::Certain(&LABEL);
    }
    match (cx.hints.dir, op) {
        (Dir::ToServer, CLIENT_RESET_V2 | CLIENT_RESET_V3) if cx.hints.nth < 4 => {
            remember(cx, dir, sid)
        }
        (Dir::ToClient, SERVER_RESET_V2) if cx.hints.nth == 0 => Probe::Certain(&LABEL),
        // A server's reset first: the capture holds the server's side only.
        (Dir::ToServer, SERVER_RESET_V2) if cx.hints.nth == 0 && st.dir == 0 => {
            remember(cx, dir, sid)
        }
        _ => Probe::NotForUs,
    }
}

/// Keep the reset's session id and direction: a candidate.
fn remember(cx: &mut Cx<'_>, dir: u8, sid: &[u8]) -> Probe {
    let st = cx.state::<State>();
    if st.dir == 0 {
        st.dir = dir;
        st.sid.copy_from_slice(sid);
    }
    Probe::Unsure
}

#[cfg(test)]
mod tests;

