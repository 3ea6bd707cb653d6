//! Modbus/TCP: an MBAP header (transaction id, protocol id 0, a length equal to the rest of
//! the segment, unit id) and a function code (1-127 requests, or an exception answer).
//!
//! Function 90 (0x5A, "Unity (Schneider)" in Wireshark's Modbus dissector) carries Schneider
//! Electric's UMAS, the engineering protocol of Modicon PLCs (documented by Kaspersky ICS CERT,
//! "The secrets of Schneider Electric's UMAS protocol", 2022): after the function come a
//! session (pairing) key byte and a UMAS function code. A request with a UMAS code of that
//! document (0x01-0x73) or an answer (0xFE success, 0xFD error) is named `Modbus.UMAS`, as nDPI
//! names it.

use crate::proto::label;
use crate::{Cx, Dir, Inspector, Label, Probe, TCP};

/// nDPI's Modbus label.
pub static LABEL: Label = label("Modbus", "IoT-Scada");

/// nDPI's UMAS label, carried over Modbus.
pub static UMAS: Label = Label {
    app: "UMAS",
    master: "Modbus",
    category: "IoT-Scada",
};

/// UMAS function codes of the Kaspersky description (requests), and the two answer codes.
const UMAS_CODES: [u8; 31] = [
    0x01, 0x02, 0x03, 0x04, 0x06, 0x0a, 0x10, 0x11, 0x12, 0x20, 0x22, 0x23, 0x24, 0x25, 0x30,
    0x31, 0x32, 0x33, 0x34, 0x35, 0x39, 0x40, 0x41, 0x50, 0x58, 0x70, 0x71, 0x72, 0x73, 0xfd,
    0xfe,
];

/// The Modbus/TCP inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "modbus",
    transports: TCP,
    ports: &[502],
    labels: &[&LABEL, &UMAS],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let (Some(&[0, 0]), Some(l), Some(&f)) = (d.get(2..4), d.get(4..6), d.get(7)) else {
        return Probe::NotForUs;
    };
    let len = usize::from(u16::from_be_bytes([l[0], l[1]]));
    let ok = len >= 2
        && len + 6 == d.len()
        && f != 0
        && (f < 0x80 || (0x81..=0xff).contains(&f) && len == 3)
        && pdu_fits(f, d.get(7..).unwrap_or(&[]), cx.hints.dir == Dir::ToServer);
    if ok && f == 0x5a && len >= 4 && d.get(9).is_some_and(|c| UMAS_CODES.contains(c)) {
        Probe::Certain(&UMAS)
    } else if ok {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

/// The PDU (function code first) has the length the Modbus Application Protocol
/// Specification (V1.1b3, §6) gives function `f`'s request (`request`) or normal answer, for
/// the public codes whose length it fixes or counts; other codes (diagnostics, file records,
/// encapsulated transport, user-defined, UMAS) as before. A DICOM A-ASSOCIATE-RQ reads as an
/// MBAP header (PDU type 1 and a zero byte, the PDU length) and function 1 (protocol version
/// 1): a Read Coils request of ~200 bytes, where the specification's is 5.
fn pdu_fits(f: u8, pdu: &[u8], request: bool) -> bool {
    let n = pdu.len();
    let count = |at: usize| pdu.get(at).map(|&c| usize::from(c));
    match (f, request) {
        // Read coils / discrete inputs / holding / input registers; write single coil / register.
        (1..=6, true) | (5 | 6 | 15 | 16, false) => n == 5,
        (1..=4, false) => count(1).is_some_and(|c| n == 2 + c),
        // Read exception status, comm event counter, comm event log, report server id.
        (7 | 11 | 12 | 17, true) => n == 1,
        // Write multiple coils / registers: start, quantity, byte count, the bytes.
        (15 | 16, true) => count(5).is_some_and(|c| n == 6 + c),
        // Mask write register (request and answer), read FIFO queue.
        (22, _) => n == 7,
        (24, true) => n == 3,
        // Read/write multiple registers: read start and quantity, write start, quantity, count.
        (23, true) => count(9).is_some_and(|c| n == 10 + c),
        (23, false) => count(1).is_some_and(|c| n == 2 + c),
        _ => true,
    }
}

#[cfg(test)]
mod tests;
