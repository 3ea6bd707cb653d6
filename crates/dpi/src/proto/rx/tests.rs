use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// rx.pcap frame 13: a data packet (type 1) to port 7000.
const DATA: &str = "d70fb3305c224fb0000000010000000100000001010500000000000100010004";

#[test]
fn corpus_vector() {
    assert_eq!(classify(UDP, 7000, 7001, &[(true, &hex(DATA))]), Some("RX"));
}

#[test]
fn type_and_port() {
    let mut v = hex(DATA);
    v[20] = 14;
    assert_eq!(run(&INSPECTOR, UDP, 7000, 7001, false, &v), Probe::NotForUs);
    assert_eq!(run(&INSPECTOR, UDP, 8000, 7001, false, &hex(DATA)), Probe::NotForUs);
}
