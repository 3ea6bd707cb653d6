use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// rmcp.pcap frame 5: an IPMI (class 7) message.
const MSG: &str = "0600ff07000000000000000000092018c88100388e04b5";

#[test]
fn corpus_vector() {
    assert_eq!(classify(UDP, 623, 57984, &[(true, &hex(MSG))]), Some("RMCP"));
}

#[test]
fn class_and_port() {
    let mut v = hex(MSG);
    v[3] = 0x05;
    assert_eq!(run(&INSPECTOR, UDP, 623, 4000, false, &v), Probe::NotForUs);
    assert_eq!(run(&INSPECTOR, UDP, 624, 4000, false, &hex(MSG)), Probe::NotForUs);
}
