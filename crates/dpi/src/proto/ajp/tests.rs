use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// ajp.pcap frames 5 and 9: CPing and CPong.
const CPING: &str = "123400010a";
const CPONG: &str = "4142000109";

#[test]
fn corpus_vectors() {
    assert_eq!(classify(TCP, 8009, 38856, &[(true, &hex(CPING))]), Some("AJP"));
    assert_eq!(classify(TCP, 8009, 38856, &[(false, &hex(CPONG))]), Some("AJP"));
}

#[test]
fn direction_and_length() {
    assert_eq!(run(&INSPECTOR, TCP, 8009, 4000, true, &hex(CPING)), Probe::NotForUs);
    assert_eq!(run(&INSPECTOR, TCP, 8009, 4000, false, &hex("123400020a")), Probe::NotForUs);
}
