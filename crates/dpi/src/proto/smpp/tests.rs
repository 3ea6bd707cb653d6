use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

/// A PDU with the header of SMPP 3.4 section 3.2 around `body`.
fn pdu(id: u32, status: u32, body: &[u8]) -> Vec<u8> {
    let mut v = ((16 + body.len()) as u32).to_be_bytes().to_vec();
    v.extend_from_slice(&id.to_be_bytes());
    v.extend_from_slice(&status.to_be_bytes());
    v.extend_from_slice(&1u32.to_be_bytes());
    v.extend_from_slice(body);
    v
}

// Captured from smpplib 2.2.4 (PyPI) as the ESME in two network namespaces (scripts/netcap,
// scenario "smpp"; tshark 4.0.17 dissects it as smpp): bind_transceiver (section 4.1.5), length
// 35, sequence 2, system_id "esme01", password "secret", system_type "", interface_version
// 0x34, TON 0, NPI 0, address_range "".
const BIND_PDU: &str = "00000023 00000009 00000000 00000002 65736d653031 00 736563726574 00 00 34 00 00 00";
// Its body, for the near misses below.
const BIND: &[u8] = b"esme01\x00secret\x00\x00\x34\x00\x00\x00";

#[test]
fn bind_and_answer() {
    let bind = hex(BIND_PDU);
    assert_eq!(bind[16..], *BIND);
    assert_eq!(classify(TCP, 2775, 33756, &[(true, &bind)]), Some("SMPP"));
    // A bind is SMPP on any port, not only IANA's 2775.
    assert_eq!(classify(TCP, 16000, 33756, &[(true, &bind)]), Some("SMPP"));
    // bind_transceiver_resp (section 4.1.6), built by hand: system id, then the
    // sc_interface_version TLV (0x0210, section 5.3.2.25).
    let resp = pdu(0x8000_0009, 0, &hex("534d534300 0210 0001 34"));
    assert_eq!(run(&INSPECTOR, TCP, 16000, 33756, true, &resp), Probe::Certain(&LABEL));
}

#[test]
fn other_pdus_only_on_2775() {
    let enquire = pdu(0x15, 0, &[]);
    assert_eq!(classify(TCP, 2775, 1770, &[(true, &enquire)]), Some("SMPP"));
    assert_eq!(run(&INSPECTOR, TCP, 16000, 1770, false, &enquire), Probe::NotForUs);
}

#[test]
fn near_misses() {
    // Password longer than 8 characters, a bind with a status, a length that is not the
    // segment's, an unknown command id, a bind sent by the server.
    let long = b"esme01\x00secret1234\x00\x00\x34\x00\x00\x00";
    assert_eq!(run(&INSPECTOR, TCP, 16000, 1770, false, &pdu(9, 0, long)), Probe::NotForUs);
    assert_eq!(run(&INSPECTOR, TCP, 16000, 1770, false, &pdu(9, 5, BIND)), Probe::NotForUs);
    let mut short = pdu(9, 0, BIND);
    short[3] -= 1;
    assert_eq!(run(&INSPECTOR, TCP, 16000, 1770, false, &short), Probe::NotForUs);
    assert_eq!(run(&INSPECTOR, TCP, 2775, 1770, false, &pdu(0x30, 0, &[])), Probe::NotForUs);
    assert_eq!(run(&INSPECTOR, TCP, 16000, 1770, true, &pdu(9, 0, BIND)), Probe::NotForUs);
    // TON past 6.
    let ton = b"esme01\x00secret\x00\x00\x34\x09\x00\x00";
    assert_eq!(run(&INSPECTOR, TCP, 16000, 1770, false, &pdu(9, 0, ton)), Probe::NotForUs);
}
