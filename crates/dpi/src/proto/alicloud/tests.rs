use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// alicloud.pcap frame 184.
const PREAMBLE: &str = "cefabeba80000000";

#[test]
fn corpus_vector() {
    assert_eq!(classify(TCP, 8999, 45094, &[(true, &hex(PREAMBLE))]), Some("AliCloud"));
}

#[test]
fn exact_preamble_only() {
    let mut v = hex(PREAMBLE);
    v.push(0);
    assert_eq!(run(&INSPECTOR, TCP, 8999, 4000, false, &v), Probe::NotForUs);
    assert_eq!(run(&INSPECTOR, TCP, 8999, 4000, true, &hex(PREAMBLE)), Probe::NotForUs);
}
