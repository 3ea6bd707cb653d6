use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// kafka.pcapng frame 26: ApiVersions (key 18) v3, client "console-producer".
const API_VERSIONS: &str = "0000003400120003000000030010636f6e736f6c652d70726f647563657200126170616368652d6b61666b612d6a61766106332e362e3100";

#[test]
fn corpus_vector() {
    assert_eq!(classify(TCP, 9092, 46136, &[(true, &hex(API_VERSIONS))]), Some("Kafka"));
}

#[test]
fn size_and_key_checked() {
    let mut v = hex(API_VERSIONS);
    v.push(0);
    assert_eq!(run(&INSPECTOR, TCP, 9092, 4000, false, &v), Probe::NotForUs);
    let mut w = hex(API_VERSIONS);
    w[4] = 0x7f; // API key 0x7f12
    assert_eq!(run(&INSPECTOR, TCP, 9092, 4000, false, &w), Probe::NotForUs);
}
