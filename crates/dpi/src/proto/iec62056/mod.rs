//! IEC 62056 (DLMS/COSEM, electricity meter reading) over TCP or UDP, in either of its two
//! framings:
//!
//! * HDLC (IEC 62056-46 section 8.4), checked anywhere: opening and closing flag 0x7E, a frame
//!   format field of type 0xA whose 11-bit length counts the bytes between the flags, and a
//!   frame check sequence (CRC-16/X-25, least significant byte first) over those bytes. The
//!   CRC makes one frame enough.
//! * The IP wrapper (IEC 62056-47 / DLMS UA Green Book: version 1, source and destination
//!   wPort, a length equal to the APDU after the 8-byte header), a weaker test claimed only on
//!   port 4059, the protocol's registered port (IANA: dlms-cosem).
//!
//! The HDLC test is nDPI's rule (src/lib/protocols/iec62056.c) with the length field checked
//! too.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP, UDP};

/// nDPI's IEC62056 label.
pub static LABEL: Label = label("IEC62056", "IoT-Scada");

/// The IEC 62056 inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "iec62056",
    transports: TCP | UDP,
    ports: &[WRAPPER_PORT],
    labels: &[&LABEL],
    min_udp: 9,
    ports_required: false,
    probe,
};

const WRAPPER_PORT: u16 = 4059;

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    if is_hdlc(d) || (cx.hints.port(WRAPPER_PORT) && is_wrapper(d)) {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

/// One whole HDLC frame with a valid FCS. The shortest (SNRM, no information field) is 9
/// bytes.
fn is_hdlc(d: &[u8]) -> bool {
    let n = d.len();
    let (Some(&0x7e), Some(&f0), Some(&f1), Some(&0x7e)) =
        (d.first(), d.get(1), d.get(2), d.last())
    else {
        return false;
    };
    let len = usize::from(u16::from_be_bytes([f0 & 0x07, f1]));
    if n < 9 || f0 & 0xf0 != 0xa0 || len + 2 != n {
        return false;
    }
    let (Some(body), Some(fcs)) = (d.get(1..n - 3), d.get(n - 3..n - 1)) else {
        return false;
    };
    crc_x25(body) == u16::from_le_bytes([fcs[0], fcs[1]])
}

/// The 8-byte wrapper header of version 1 with the APDU length filling the rest.
fn is_wrapper(d: &[u8]) -> bool {
    let (Some(&[0, 1]), Some(l)) = (d.get(..2), d.get(6..8)) else {
        return false;
    };
    let len = usize::from(u16::from_be_bytes([l[0], l[1]]));
    len > 0 && len + 8 == d.len()
}

/// CRC-16/X-25 (the HDLC FCS of ISO/IEC 13239, IEC 62056-46 Annex A; the catalogue's
/// CRC-16/IBM-SDLC), from the `crc` crate.
fn crc_x25(b: &[u8]) -> u16 {
    static CRC: crc::Crc<u16> = crc::Crc::<u16>::new(&crc::CRC_16_IBM_SDLC);
    CRC.checksum(b)
}

#[cfg(test)]
mod tests;
