use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

#[test]
fn corpus_vector() {
    // elasticsearch.pcap frame 25: a 267-byte request ("ES", length 0x105), cut after the
    // header and rebuilt at the length it declares with zero bytes.
    let mut v = hex("455300000105000000002e2b069600006bbb4b000000a8011e5f787061636b");
    v.resize(267, 0);
    assert_eq!(classify(TCP, 9300, 33288, &[(true, &v)]), Some("Elasticsearch"));
    v.push(0);
    assert_eq!(run(&INSPECTOR, TCP, 9300, 4000, false, &v), Probe::NotForUs);
}

#[test]
fn not_es() {
    assert_eq!(run(&INSPECTOR, TCP, 9300, 4000, false, b"ESMTP ready"), Probe::NotForUs);
}
