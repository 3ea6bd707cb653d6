use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

#[test]
fn corpus_vector() {
    // netflow-fritz.pcap frame 1: IPFIX, length 0xb4 (180); its first set is a template set
    // (id 2) of 0x70 bytes; the rest rebuilt as one data set of 0x34 bytes (id 256).
    let mut v = hex("000a00b4594ac59d025965c4000401000002007001cd00160001000480cf0004");
    v.resize(16 + 0x70, 0);
    v.extend_from_slice(&[0x01, 0x00, 0x00, 0x34]);
    v.resize(180, 0);
    assert_eq!(classify(UDP, 2055, 23384, &[(true, &v)]), Some("NetFlow"));
    v.push(0);
    assert_eq!(run(&INSPECTOR, UDP, 2055, 4000, false, &v), Probe::NotForUs);
}

#[test]
fn v5_size() {
    let mut v = vec![0, 5, 0, 2];
    v.resize(24 + 96, 0);
    assert_eq!(run(&INSPECTOR, UDP, 2055, 4000, false, &v), Probe::Certain(&LABEL));
    v.pop();
    assert_eq!(run(&INSPECTOR, UDP, 2055, 4000, false, &v), Probe::NotForUs);
}
