use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// softether.pcap frames 1 and 2: the one-byte probe and the "IP=...,PORT=..." answer.
const ANSWER: &str = "49503d39302e3138362e3133322e3133332c504f52543d3531333831";
// softether.pcap, a later flow: a PACK of 12 elements, the first named "host_name".
const PACK: &str = "0000000c0000000a686f73745f6e616d6500000002000000010000000376706e";

#[test]
fn corpus_vectors() {
    assert_eq!(
        classify(UDP, 5004, 51381, &[(true, b"A"), (false, &hex(ANSWER))]),
        Some("Softether")
    );
    assert_eq!(classify(UDP, 5004, 51381, &[(true, &hex(PACK))]), Some("Softether"));
}

#[test]
fn pack_checked() {
    let mut v = hex(PACK);
    v[10] = b'-';
    assert_eq!(run(&INSPECTOR, UDP, 5004, 4000, false, &v), Probe::NotForUs);
}
