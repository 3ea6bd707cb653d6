use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// epicgames.pcapng frames 39 and 40 (first 40 bytes of each).
const OPEN: &str = "471a200008982265740400000000000000000000000000000000000000000000000000000000";
const ANSWER: &str = "471a20080898226574040000406229fcaa0d0e84170067c3a4ae7427cc594cbcec2daa8a950b";

#[test]
fn corpus_vector() {
    let (o, a) = (hex(OPEN), hex(ANSWER));
    assert_eq!(classify(UDP, 9011, 39322, &[(true, &o), (false, &a)]), Some("EpicGames"));
}

#[test]
fn opening_needs_the_zeros() {
    assert_eq!(run(&INSPECTOR, UDP, 9011, 4000, false, &hex(ANSWER)), Probe::NotForUs);
    assert_eq!(run(&INSPECTOR, UDP, 9011, 4000, false, &hex(OPEN)), Probe::Unsure);
}
