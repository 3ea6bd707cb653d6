use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// Built from the format Wireshark's CPHA dissector documents (no ClusterXL here): version 1,
// cluster 1, FWHA_MY_STATE (opcode 1) with one reported id. tshark 4.0.17 dissects it as "Check
// Point High Availability Protocol", "Protocol Version: 4.1 (1)", "HA OpCode: FWHA_MY_STATE".
const MY_STATE: &str = "1a9000010001000100000000000000000001000000000000";

#[test]
fn spec_vector() {
    assert_eq!(classify(UDP, 8116, 8116, &[(true, &hex(MY_STATE))]), Some("CPHA"));
}

#[test]
fn near_misses() {
    let mut v = hex(MY_STATE);
    v[1] = 0x91; // magic
    assert_eq!(run(&INSPECTOR, UDP, 8116, 8116, false, &v), Probe::NotForUs);
    let mut v = hex(MY_STATE);
    v[7] = 11; // opcode 11
    assert_eq!(run(&INSPECTOR, UDP, 8116, 8116, false, &v), Probe::NotForUs);
    let mut v = hex(MY_STATE);
    v[3] = 0; // version 0
    assert_eq!(run(&INSPECTOR, UDP, 8116, 8116, false, &v), Probe::NotForUs);
    assert_eq!(run(&INSPECTOR, UDP, 8116, 8116, false, &hex(MY_STATE)[..15]), Probe::NotForUs);
    assert_eq!(run(&INSPECTOR, UDP, 8117, 8117, false, &hex(MY_STATE)), Probe::NotForUs);
}
