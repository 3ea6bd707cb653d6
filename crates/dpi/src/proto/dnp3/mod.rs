//! DNP3 (IEEE 1815) over TCP or UDP, usually port 20000: every message opens with a data link
//! header (clause 9.2.4): start bytes 0x05 0x64, a length of 5-255 (control, addresses and user
//! data), a control byte, destination and source addresses, and a CRC-16/DNP over those eight
//! bytes, little-endian. The header CRC makes the test strong, so no port is needed. Port 20000
//! is DNP's in the IANA registry; nDPI's dnp3.c tests only the start bytes and 10 bytes.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP, UDP};

/// nDPI's DNP3 label.
pub static LABEL: Label = label("DNP3", "IoT-Scada");

/// The DNP3 inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "dnp3",
    transports: TCP | UDP,
    ports: &[20000],
    labels: &[&LABEL],
    min_udp: 10,
    ports_required: false,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let (Some(&[0x05, 0x64, len]), Some(head), Some(c)) = (d.get(..3), d.get(..8), d.get(8..10))
    else {
        return Probe::NotForUs;
    };
    if len >= 5 && crc_dnp(head) == u16::from_le_bytes([c[0], c[1]]) {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

/// CRC-16/DNP (IEEE 1815 clause 9.2.4.1.5 and Annex E), from the `crc` crate's catalogue.
fn crc_dnp(b: &[u8]) -> u16 {
    static CRC: crc::Crc<u16> = crc::Crc::<u16>::new(&crc::CRC_16_DNP);
    CRC.checksum(b)
}

#[cfg(test)]
mod tests;
