//! Ether-S-Bus (Saia-Burgess PCD controllers' S-Bus over UDP, usually port 5050): a 9-byte
//! header (a 32-bit length equal to the datagram, version 0 or 1, protocol type 0, a sequence
//! number, a telegram attribute: 0 request, 1 response, 2 ACK/NAK), the S-Bus telegram, and a
//! CRC-16 (CCITT polynomial, initial value 0, big-endian) over everything before it. The CRC
//! makes one datagram enough. The tests (over 12 bytes, length, version < 2, type 0, the CRC)
//! are nDPI's rule (src/lib/protocols/ethersbus.c); the field names and port 5050 are those of
//! Wireshark's Ether-S-Bus dissector (epan/dissectors/packet-sbus.c).

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, UDP};

/// nDPI's Ether-S-Bus label.
pub static LABEL: Label = label("Ether-S-Bus", "IoT-Scada");

/// The Ether-S-Bus inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "ethersbus",
    transports: UDP,
    ports: &[5050],
    labels: &[&LABEL],
    min_udp: MIN,
    ports_required: false,
    probe,
};

/// Shortest frame: the header, a 2-byte ACK/NAK code and the CRC.
const MIN: u16 = 13;

fn probe(cx: &mut Cx<'_>) -> Probe {
    Probe::certain_if(is_sbus(cx.data), &LABEL)
}

fn is_sbus(d: &[u8]) -> bool {
    let n = d.len();
    let (Some(l), Some(&version), Some(&0), Some(&attr)) = (d.get(..4), d.get(4), d.get(5), d.get(8))
    else {
        return false;
    };
    let len = u32::from_be_bytes([l[0], l[1], l[2], l[3]]) as usize;
    if n < usize::from(MIN) || len != n || version > 1 || attr > 2 {
        return false;
    }
    let (Some(body), Some(c)) = (d.get(..n - 2), d.get(n - 2..)) else {
        return false;
    };
    crc_xmodem(body) == u16::from_be_bytes([c[0], c[1]])
}

/// CRC-16/XMODEM (polynomial 0x1021, not reflected, initial value 0), from the `crc` crate.
fn crc_xmodem(b: &[u8]) -> u16 {
    static CRC: crc::Crc<u16> = crc::Crc::<u16>::new(&crc::CRC_16_XMODEM);
    CRC.checksum(b)
}

#[cfg(test)]
mod tests;
