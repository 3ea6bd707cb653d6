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
