use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// tinc.pcap frame 5: "0 think 17\n".
const ID: &str = "30207468696e6b2031370a";

#[test]
fn corpus_vector() {
    assert_eq!(classify(TCP, 55655, 59244, &[(true, &hex(ID))]), Some("TINC"));
}

#[test]
fn other_lines() {
    assert_eq!(run(&INSPECTOR, TCP, 655, 4000, false, b"0 think 2\n"), Probe::NotForUs);
    assert_eq!(run(&INSPECTOR, TCP, 655, 4000, false, b"0 a b 17\n"), Probe::NotForUs);
}
