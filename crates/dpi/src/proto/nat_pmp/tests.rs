use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

#[test]
fn corpus_vectors() {
    // natpmp.pcap: external address request and its answer.
    assert_eq!(classify(UDP, 5351, 36852, &[(true, &hex("0000"))]), Some("NAT-PMP"));
    let answer = hex("00800000002b3add0ac9d5ae");
    assert_eq!(classify(UDP, 5351, 36852, &[(false, &answer)]), Some("NAT-PMP"));
}

#[test]
fn sizes_checked() {
    assert_eq!(run(&INSPECTOR, UDP, 5351, 4000, false, &hex("000000")), Probe::NotForUs);
    assert_eq!(run(&INSPECTOR, UDP, 5350, 4000, false, &hex("0000")), Probe::NotForUs);
}
