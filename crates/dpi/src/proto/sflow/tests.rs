use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

#[test]
fn corpus_vector() {
    // sflow.pcap frame 1: version 5, IPv4 agent, one sample of 0x6c bytes (144 in all).
    let mut v = hex("0000000500000001ac152311000000010000019f673dd71000000001000000020000006c");
    v.resize(144, 0);
    assert_eq!(classify(UDP, 6343, 1027, &[(true, &v)]), Some("sFlow"));
    v.push(0);
    assert_eq!(run(&INSPECTOR, UDP, 6343, 4000, false, &v), Probe::NotForUs);
}

#[test]
fn version_checked() {
    let mut v = hex("0000000400000001ac152311000000010000019f673dd71000000001000000020000006c");
    v.resize(144, 0);
    assert_eq!(run(&INSPECTOR, UDP, 6343, 4000, false, &v), Probe::NotForUs);
}
