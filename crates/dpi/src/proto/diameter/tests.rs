use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

#[test]
fn corpus_vector() {
    // diameter.pcap frame 1: a request of 0x158 (344) bytes, command 272 (credit control);
    // the first 24 bytes kept and zero-padded to the declared length.
    let mut v = hex("01000158800001100000000402ea493026f0000300000107");
    v.resize(344, 0);
    assert_eq!(classify(TCP, 3868, 50957, &[(true, &v)]), Some("Diameter"));
    v.pop();
    assert_eq!(run(&INSPECTOR, TCP, 3868, 4000, false, &v), Probe::NotForUs);
}

#[test]
fn reserved_flags() {
    let mut v = hex("01000158800001100000000402ea493026f0000300000107");
    v.resize(344, 0);
    v[4] = 0x81;
    assert_eq!(run(&INSPECTOR, TCP, 3868, 4000, false, &v), Probe::NotForUs);
}
