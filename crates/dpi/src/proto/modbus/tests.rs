use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// umas.pcap frame 4: a request with function 0x5a (Schneider UMAS).
const REQ: &str = "000000000004005a0002";

#[test]
fn corpus_vector() {
    assert_eq!(classify(TCP, 502, 7718, &[(true, &hex(REQ))]), Some("Modbus"));
}

#[test]
fn header_checked() {
    let mut v = hex(REQ);
    v[3] = 1; // protocol id 1
    assert_eq!(run(&INSPECTOR, TCP, 502, 4000, false, &v), Probe::NotForUs);
    let w = hex(REQ);
    assert_eq!(run(&INSPECTOR, TCP, 502, 4000, false, &w[..9]), Probe::NotForUs);
}

// Built from the Kaspersky ICS CERT UMAS description (no Schneider software installs here):
// a READ_ID request (UMAS code 0x02, session key 0) in function 0x5A, transaction 1. tshark
// 4.0.17 dissects it as Modbus/TCP, "Function Code: Unity (Schneider) (90)", data 0002.
const UMAS_READ_ID: &str = "000100000004005a0002";

#[test]
fn umas() {
    let v = hex(UMAS_READ_ID);
    assert_eq!(run(&INSPECTOR, TCP, 502, 4000, false, &v), Probe::Certain(&UMAS));
    assert_eq!(classify(TCP, 502, 4000, &[(true, &v)]), Some("Modbus"));
    // An answer: success code 0xFE.
    let ok = hex("000100000005005a00fe00");
    assert_eq!(run(&INSPECTOR, TCP, 502, 4000, true, &ok), Probe::Certain(&UMAS));
    // No UMAS code after the session key: plain Modbus.
    let short = hex("000100000003005a00");
    assert_eq!(run(&INSPECTOR, TCP, 502, 4000, false, &short), Probe::Certain(&LABEL));
    // An unknown UMAS code: plain Modbus.
    let mut w = v;
    w[9] = 0x99;
    assert_eq!(run(&INSPECTOR, TCP, 502, 4000, false, &w), Probe::Certain(&LABEL));
}

/// Requests and answers shaped as the Modbus Application Protocol Specification V1.1b3 §6
/// gives them: Modbus; the same MBAP header before a PDU of another length for that function
/// is not.
#[test]
fn function_lengths_follow_the_specification() {
    // Read holding registers (3): start 0, quantity 8; the answer's 16 bytes.
    let req = hex("000100000006010300000008");
    assert_eq!(run(&INSPECTOR, TCP, 502, 4000, false, &req), Probe::Certain(&LABEL));
    let ans = hex("00010000001301031000000001000200030004000500060007");
    assert_eq!(run(&INSPECTOR, TCP, 502, 4000, true, &ans), Probe::Certain(&LABEL));
    // Write multiple registers (16): start 1, two registers, 4 bytes.
    let wr = hex("00020000000b011000010002040001000a");
    assert_eq!(run(&INSPECTOR, TCP, 502, 4000, false, &wr), Probe::Certain(&LABEL));
    // A read coils request with one byte more, and the write with a byte count that is wrong.
    let long = hex("00030000000701010000001000");
    assert_eq!(run(&INSPECTOR, TCP, 502, 4000, false, &long), Probe::NotForUs);
    let mut bad = wr.clone();
    bad[12] = 5;
    assert_eq!(run(&INSPECTOR, TCP, 502, 4000, false, &bad), Probe::NotForUs);
}

/// A DICOM A-ASSOCIATE-RQ (PS3.8 §9.3.2: PDU type 1, a reserved byte, a 4-byte length of the
/// rest, protocol version 1, the AE titles, the application context) reads as an MBAP header
/// with a length equal to the rest and function 1. Off tcp/104 and 11112 it was Modbus (the
/// held-out dicom capture with its ports moved, `scripts/ports_moved.py`).
#[test]
fn a_dicom_association_request_is_not_modbus() {
    let mut v = vec![0x01, 0x00, 0, 0, 0, 0, 0x00, 0x01, 0, 0];
    v.extend_from_slice(b"ECHOSCP         ECHOSCU         ");
    v.extend_from_slice(&[0; 32]);
    v.extend_from_slice(&[0x10, 0, 0, 21]);
    v.extend_from_slice(b"1.2.840.10008.3.1.1.1");
    let n = (v.len() - 6) as u32;
    v[2..6].copy_from_slice(&n.to_be_bytes());
    assert_eq!(run(&INSPECTOR, TCP, 44000, 40000, false, &v), Probe::NotForUs);
    assert_eq!(classify(TCP, 44000, 40000, &[(true, &v)]), Some("DICOM"));
}
