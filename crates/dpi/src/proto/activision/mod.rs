//! Activision (Call of Duty) peer traffic over UDP: one side opens with the magic `0c 02` or
//! `0d 02` and the other answers with the other one, in packets of at least 18 bytes. PTPv2
//! signalling and management messages start with the same two bytes; they carry their own
//! length at byte 2 (at least the 34-byte header, at most the datagram) and use ports 319/320,
//! and are refused.

use crate::proto::label;
use crate::{Cx, Dir, Inspector, Label, Probe, UDP};

/// nDPI's Activision label.
pub static LABEL: Label = label("Activision", "Game");

/// The Activision inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "activision",
    transports: UDP,
    ports: &[3074],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let ptp = cx.hints.port(319)
        || cx.hints.port(320)
        || d.get(2..4).is_some_and(|l| {
            // IEEE 1588's messageLength: the header's 34 bytes and more, within the datagram
            // (which may carry bytes after the message: ptpv2.pcap's signalling messages are
            // 54 bytes in 56).
            let len = usize::from(u16::from_be_bytes([l[0], l[1]]));
            (34..=d.len()).contains(&len)
        });
    let magic =
        !ptp && d.len() >= 18 && matches!(d.get(..2), Some(&[0x0c, 2] | &[0x0d, 2]));
    match (magic, cx.hints.dir, cx.hints.nth) {
        (true, Dir::ToServer, 0) => Probe::Unsure,
        (true, Dir::ToClient, 0) => Probe::Certain(&LABEL),
        (true, Dir::ToServer, _) => Probe::Unsure,
        _ => Probe::NotForUs,
    }
}

#[cfg(test)]
mod tests;
