use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// oicq.pcap frame 12 (52 bytes).
const MSG: &str = "023b0b00010022561f0c7b000000000000000012786045efcebdf390bf1f00f1d4f806aaab11359e1d433e18330f6c8b53839a03";

#[test]
fn corpus_vector() {
    assert_eq!(classify(UDP, 8000, 54233, &[(true, &hex(MSG))]), Some("OICQ"));
}

#[test]
fn version_and_end_checked() {
    let mut v = hex(MSG);
    v[2] = 0x0c;
    assert_eq!(run(&INSPECTOR, UDP, 8000, 4000, false, &v), Probe::NotForUs);
    let w = hex(MSG);
    assert_eq!(run(&INSPECTOR, UDP, 8000, 4000, false, &w[..51]), Probe::NotForUs);
}
