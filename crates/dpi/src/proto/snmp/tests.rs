use super::*;
use crate::proto::testkit::{classify, probe as run};

/// A v2c GetRequest for sysDescr.0 with community "public", encoded by hand from RFC 3416's
/// ASN.1 (no SNMP capture in the corpus): SEQUENCE { 1, "public", GetRequest { id 1, 0, 0,
/// { { 1.3.6.1.2.1.1.1.0, NULL } } } }.
fn get_request() -> Vec<u8> {
    let vb = [
        0x30, 0x0c, 0x06, 0x08, 0x2b, 0x06, 0x01, 0x02, 0x01, 0x01, 0x01, 0x00, 0x05, 0x00,
    ];
    let mut pdu = vec![0x02, 0x01, 0x01, 0x02, 0x01, 0x00, 0x02, 0x01, 0x00, 0x30, 0x0e];
    pdu.extend_from_slice(&vb);
    let mut msg = vec![0x02, 0x01, 0x01, 0x04, 0x06];
    msg.extend_from_slice(b"public");
    msg.push(0xa0);
    msg.push(pdu.len() as u8);
    msg.extend_from_slice(&pdu);
    let mut out = vec![0x30, msg.len() as u8];
    out.extend_from_slice(&msg);
    out
}

#[test]
fn hand_encoded_request() {
    assert_eq!(classify(UDP, 161, 40000, &[(true, &get_request())]), Some("SNMP"));
}

#[test]
fn lengths_and_version() {
    let mut v = get_request();
    v.push(0);
    assert_eq!(run(&INSPECTOR, UDP, 161, 4000, false, &v), Probe::NotForUs);
    let mut w = get_request();
    w[4] = 2; // version 2 does not exist on the wire
    assert_eq!(run(&INSPECTOR, UDP, 161, 4000, false, &w), Probe::NotForUs);
}
