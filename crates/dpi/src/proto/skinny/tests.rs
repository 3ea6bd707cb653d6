use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// skinny.pcap frame 1: message 0x26 (24 bytes).
const MSG: &str = "100000001400000026000000010000000000000000000000";

#[test]
fn corpus_vector() {
    assert_eq!(classify(TCP, 2000, 49399, &[(true, &hex(MSG))]), Some("CiscoSkinny"));
}

#[test]
fn length_checked() {
    let v = hex(MSG);
    assert_eq!(run(&INSPECTOR, TCP, 2000, 4000, false, &v[..23]), Probe::NotForUs);
}
