//! TRDP, the Train Real-time Data Protocol of the train communication network (IEC 61375-2-3,
//! Annex A; TCNOpen's reference implementation), process data on UDP port 17224 and message
//! data on UDP/TCP 17225. Process data has a 40-byte header: sequence counter, protocol
//! version (1.x), message type (`Pd`, `Pp`, `Pr`, `Pe`), ComId, two topography counters, the
//! dataset length, a reserved word, reply ComId and reply address, and a header FCS. Message
//! data has a 116-byte header: the same first seven fields (types `Mn`, `Mr`, `Mp`,
//! `Mq`, `Mc`, `Me`), reply status, a 16-byte session id, reply timeout, source and destination
//! URIs of 32 bytes each, and the FCS. The FCS is the CRC-32 of IEEE 802.3 over the header
//! before it (written little-endian by the reference implementation).
//!
//! Checked: version 1.x, a known message type, the header's CRC-32 (either byte order), and a
//! dataset length that fits in the datagram. The checksum needs no port.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP, UDP};

/// nDPI's TRDP label.
pub static LABEL: Label = label("TRDP", "IoT-Scada");

/// The TRDP inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "trdp",
    transports: TCP | UDP,
    ports: &[17224, 17225],
    labels: &[&LABEL],
    min_udp: 40,
    ports_required: false,
    probe,
};

/// CRC-32 of IEEE 802.3 (the `crc` crate's CRC_32_ISO_HDLC).
fn crc32(b: &[u8]) -> u32 {
    static CRC: crc::Crc<u32> = crc::Crc::<u32>::new(&crc::CRC_32_ISO_HDLC);
    CRC.checksum(b)
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let (Some(&1), Some(t), Some(l)) = (d.get(4), d.get(6..8), d.get(20..24)) else {
        return Probe::NotForUs;
    };
    let header = match t {
        b"Pd" | b"Pp" | b"Pr" | b"Pe" => 40,
        b"Mn" | b"Mr" | b"Mp" | b"Mq" | b"Mc" | b"Me" => 116,
        _ => return Probe::NotForUs,
    };
    let (Some(head), Some(f)) = (d.get(..header - 4), d.get(header - 4..header)) else {
        return Probe::NotForUs;
    };
    let fcs = crc32(head);
    let stored = [f[0], f[1], f[2], f[3]];
    let fcs_ok = u32::from_le_bytes(stored) == fcs || u32::from_be_bytes(stored) == fcs;
    let dataset = u32::from_be_bytes([l[0], l[1], l[2], l[3]]) as usize;
    if fcs_ok && dataset <= d.len() - header {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
