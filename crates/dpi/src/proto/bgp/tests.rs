use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// BGP_Cisco_hdlc_slarp.pcap frame 4: an OPEN of 57 bytes (first 24 kept).
const OPEN: &str = "ffffffffffffffffffffffffffffffff00390104000100b4";

#[test]
fn corpus_vector() {
    assert_eq!(classify(TCP, 179, 18324, &[(true, &hex(OPEN))]), Some("BGP"));
}

#[test]
fn marker_and_type() {
    let mut v = hex(OPEN);
    v[18] = 6;
    assert_eq!(run(&INSPECTOR, TCP, 179, 4000, false, &v), Probe::NotForUs);
    let mut w = hex(OPEN);
    w[3] = 0;
    assert_eq!(run(&INSPECTOR, TCP, 179, 4000, false, &w), Probe::NotForUs);
}
