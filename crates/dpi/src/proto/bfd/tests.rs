use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// bfd.pcap frame 1: a control packet (24 bytes).
const CTRL: &str = "204003180000000100000000000f4240000f42400007a120";

#[test]
fn corpus_vector() {
    assert_eq!(classify(UDP, 3784, 49152, &[(true, &hex(CTRL))]), Some("BFD"));
}

#[test]
fn version_and_length() {
    let mut v = hex(CTRL);
    v[0] = 0x40;
    assert_eq!(run(&INSPECTOR, UDP, 3784, 4000, false, &v), Probe::NotForUs);
    let w = hex(CTRL);
    assert_eq!(run(&INSPECTOR, UDP, 3784, 4000, false, &w[..23]), Probe::NotForUs);
    // Off BFD's ports, the same bytes are not BFD.
    assert_eq!(run(&INSPECTOR, UDP, 443, 4000, false, &w), Probe::NotForUs);
}
