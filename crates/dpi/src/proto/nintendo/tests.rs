use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// nintendo.pcap frame 187 (first 40 bytes).
const PIA: &str = "32ab986402000000ecc00000895c564c741760b90c98486fdd31610a8f43f745f0a965db80e9590f";

#[test]
fn corpus_vector() {
    assert_eq!(classify(UDP, 27520, 55915, &[(true, &hex(PIA))]), Some("Nintendo"));
}

#[test]
fn magic_and_version() {
    let mut v = hex(PIA);
    v[4] = 1;
    assert_eq!(run(&INSPECTOR, UDP, 27520, 4000, false, &v), Probe::NotForUs);
}
