use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// zug.pcap frame 7 (first 24 bytes).
const MSG: &str = "007a55471099aabc006ee2dd065ceab3ee3d5ac4b16fda21";

#[test]
fn corpus_vector() {
    assert_eq!(classify(UDP, 19000, 44174, &[(true, &hex(MSG))]), Some("ZUG"));
}

#[test]
fn version_checked() {
    let mut v = hex(MSG);
    v[4] = 0x11;
    assert_eq!(run(&INSPECTOR, UDP, 19000, 4000, false, &v), Probe::NotForUs);
}
