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
