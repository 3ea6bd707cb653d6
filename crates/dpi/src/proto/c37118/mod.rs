//! IEEE C37.118 synchrophasor frames (C37.118.2-2011 section 6.2; TCP 4712, UDP 4713): SYNC
//! (0xAA, then the frame type 0-5 and the version 1-3 in one byte), FRAMESIZE (the whole frame),
//! IDCODE, SOC, FRACSEC, the frame's body and CHK, a CRC-CCITT (init 0xFFFF, CRC-16/IBM-3740)
//! over everything before it. A frame whose CRC checks is proof on any port.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP, UDP};

/// nDPI's IEEE C37.118 label.
pub static LABEL: Label = label("IEEE-C37118", "IoT-Scada");

/// The IEEE C37.118 inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "c37118",
    transports: TCP | UDP,
    ports: &[4712, 4713],
    labels: &[&LABEL],
    min_udp: MIN_FRAME as u16,
    ports_required: false,
    probe,
};

/// SYNC, FRAMESIZE, IDCODE, SOC, FRACSEC and CHK.
const MIN_FRAME: usize = 16;

/// The frame at the start of `d` is whole and its CRC checks.
fn is_frame(d: &[u8]) -> bool {
    static CRC: crc::Crc<u16> = crc::Crc::<u16>::new(&crc::CRC_16_IBM_3740);
    let (Some(&0xaa), Some(&kind), Some(size)) = (d.first(), d.get(1), d.get(2..4)) else {
        return false;
    };
    let size = usize::from(u16::from_be_bytes([size[0], size[1]]));
    if (kind >> 4) > 5 || kind & 0x80 != 0 || !(1..=3).contains(&(kind & 0x0f)) || size < MIN_FRAME {
        return false;
    }
    let Some(frame) = d.get(..size) else {
        return false;
    };
    let (body, chk) = frame.split_at(size - 2);
    CRC.checksum(body) == u16::from_be_bytes([chk[0], chk[1]])
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    Probe::certain_if(is_frame(cx.data), &LABEL)
}

#[cfg(test)]
mod tests;
