use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

#[test]
fn corpus_vector() {
    // protonvpn.pcap frame 27: handshake initiation (148 bytes), first 32 kept, zero-padded.
    let mut v = hex("010000009043164c7143e5ba10e783aec166579f5c8fa1cd28f0554608b81a9a");
    v.resize(148, 0);
    assert_eq!(classify(UDP, 443, 57701, &[(true, &v)]), Some("WireGuard"));
    // protonvpn.pcap frame 29: a keepalive (type 4, 32 bytes) alone is not enough.
    let k = hex("040000005a80d24e0000000000000000b3b5aae8b513782beb8c9b6ba0f31d8d");
    assert_eq!(run(&INSPECTOR, UDP, 443, 57701, false, &k), Probe::Unsure);
}

#[test]
fn sizes_checked() {
    let mut v = vec![1u8, 0, 0, 0];
    v.resize(147, 0);
    assert_eq!(run(&INSPECTOR, UDP, 51820, 4000, false, &v), Probe::NotForUs);
    v[1] = 1;
    v.resize(148, 0);
    assert_eq!(run(&INSPECTOR, UDP, 51820, 4000, false, &v), Probe::NotForUs);
}
