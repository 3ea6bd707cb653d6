//! Toca Boca games over the Photon protocol (UDP 5055/5056): a 12-byte header (peer id, CRC
//! flag, command count, time, challenge) and that many commands (type, channel, flags,
//! reserved, 32-bit length including their 12-byte header) that fill the datagram exactly.
//! Like nDPI, the opening is the peer id `ffff` with a connect command, or an acknowledgement
//! of 20 bytes first.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, UDP};

/// nDPI's TocaBoca label.
pub static LABEL: Label = label("TocaBoca", "Game");

/// The Toca Boca (Photon) inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "tocaboca",
    transports: UDP,
    ports: &[5055, 5056],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

/// Photon commands fill the datagram; returns the first command's type and length.
fn photon(d: &[u8]) -> Option<(u8, u32)> {
    let (&crc, &count) = (d.get(2)?, d.get(3)?);
    if crc > 1 || count == 0 || count > 32 {
        return None;
    }
    let mut at = 12;
    let mut first = None;
    for _ in 0..count {
        let ty = *d.get(at)?;
        let l = d.get(at + 4..at + 8)?;
        let len = u32::from_be_bytes([l[0], l[1], l[2], l[3]]);
        if !(1..=15).contains(&ty) || len < 12 {
            return None;
        }
        first.get_or_insert((ty, len));
        at = at.checked_add(len as usize)?;
    }
    (at == d.len()).then_some(first).flatten()
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    if d.len() >= 13 && d.starts_with(&[0x7d; 8]) {
        return Probe::Certain(&LABEL);
    }
    let ok = match photon(d) {
        // A connect from a peer without an id yet.
        Some((2, _)) => d.starts_with(&[0xff, 0xff]),
        // An acknowledgement (20 bytes) first.
        Some((1, 20)) => true,
        _ => false,
    };
    if ok {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
