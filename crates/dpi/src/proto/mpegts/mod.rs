//! MPEG transport stream over UDP (ISO/IEC 13818-1; IPTV multicast, RTP-less): the datagram is
//! whole 188-byte TS packets, each opening with the sync byte 0x47 and an adaptation field
//! control that is not the reserved 00.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, UDP};

/// nDPI's MPEG_TS label.
pub static LABEL: Label = label("MPEG_TS", "Media");

/// The MPEG-TS inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "mpegts",
    transports: UDP,
    ports: &[],
    labels: &[&LABEL],
    min_udp: TS as u16,
    ports_required: false,
    probe,
};

/// A TS packet's size.
const TS: usize = 188;

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let ok = !d.is_empty()
        && d.len().is_multiple_of(TS)
        && d.chunks_exact(TS).all(|p| p[0] == 0x47 && p[3] & 0x30 != 0);
    Probe::certain_if(ok, &LABEL)
}

#[cfg(test)]
mod tests;
