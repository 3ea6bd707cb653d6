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

// bind_transceiver body (section 4.1.5): system_id "smppclient1", password "password" (the
// PLAIN TEXT of smpp_in_general.pcap.out), system_type "", interface_version 0x34, TON 1,
// NPI 1, address_range "".
const BIND: &[u8] = b"smppclient1\x00password\x00\x00\x34\x01\x01\x00";

#[test]
fn bind_and_answer() {
    // smpp_in_general.pcap.out: TCP to port 9000, not 2775.
    assert_eq!(classify(TCP, 9000, 1770, &[(true, &pdu(9, 0, BIND))]), Some("SMPP"));
    // bind_transceiver_resp: system id, then the sc_interface_version TLV (0x0210).
    let resp = pdu(0x8000_0009, 0, &hex("534d534300 0210 0001 34"));
    assert_eq!(run(&INSPECTOR, TCP, 9000, 1770, true, &resp), Probe::Certain(&LABEL));
}

#[test]
fn other_pdus_only_on_2775() {
    let enquire = pdu(0x15, 0, &[]);
    assert_eq!(classify(TCP, 2775, 1770, &[(true, &enquire)]), Some("SMPP"));
    assert_eq!(run(&INSPECTOR, TCP, 9000, 1770, false, &enquire), Probe::NotForUs);
}

#[test]
fn near_misses() {
    // Password longer than 8 characters, a bind with a status, a length that is not the
    // segment's, an unknown command id, a bind sent by the server.
    let long = b"smppclient1\x00password12\x00\x00\x34\x01\x01\x00";
    assert_eq!(run(&INSPECTOR, TCP, 9000, 1770, false, &pdu(9, 0, long)), Probe::NotForUs);
    assert_eq!(run(&INSPECTOR, TCP, 9000, 1770, false, &pdu(9, 5, BIND)), Probe::NotForUs);
    let mut short = pdu(9, 0, BIND);
    short[3] -= 1;
    assert_eq!(run(&INSPECTOR, TCP, 9000, 1770, false, &short), Probe::NotForUs);
    assert_eq!(run(&INSPECTOR, TCP, 2775, 1770, false, &pdu(0x30, 0, &[])), Probe::NotForUs);
    assert_eq!(run(&INSPECTOR, TCP, 9000, 1770, true, &pdu(9, 0, BIND)), Probe::NotForUs);
    // TON past 6.
    let ton = b"smppclient1\x00password\x00\x00\x34\x09\x01\x00";
    assert_eq!(run(&INSPECTOR, TCP, 9000, 1770, false, &pdu(9, 0, ton)), Probe::NotForUs);
}
