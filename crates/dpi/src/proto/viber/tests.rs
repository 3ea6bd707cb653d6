use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// viber.pcap frame 261 (first 40 of 257 bytes): a call set-up.
const SETUP: &str = "edf601000500ac19358c8f64e44707ae27541100a8c043b832000000430100100100ae3992916301";

#[test]
fn corpus_vector() {
    assert_eq!(classify(UDP, 7985, 47171, &[(true, &hex(SETUP))]), Some("Viber"));
}

#[test]
fn header_checked() {
    let mut v = hex(SETUP);
    v[4] = 6;
    assert_eq!(run(&INSPECTOR, UDP, 7985, 4000, false, &v), Probe::NotForUs);
}
