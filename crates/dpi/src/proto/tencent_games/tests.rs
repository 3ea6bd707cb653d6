use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// tencent_games.pcap: four TCP flows to Tencent servers on odd ports (31003, 20731, 65010,
// 8085), client payloads of 100-460 bytes. The headers are those in the module doc; the
// bodies are filler.
fn msg(head: &str, len: usize) -> Vec<u8> {
    let mut v = hex(head);
    v.resize(len, 0x21);
    v
}

#[test]
fn gcloud_headers() {
    let a = msg("3366000b000b", 120);
    assert_eq!(classify(TCP, 31003, 47046, &[(true, &a)]), Some("TencentGames"));
    let b = msg("4366aa00 0102030405060708 10e68601", 120);
    assert_eq!(classify(TCP, 20731, 42864, &[(true, &b)]), Some("TencentGames"));
    let c = msg("aa000000 010203040506 10e68601", 120);
    assert_eq!(classify(TCP, 65010, 43300, &[(true, &c)]), Some("TencentGames"));
    // Length 0x74 = 120 - 4, then a zlib header.
    let d = msg("00000074 7801", 120);
    assert_eq!(classify(TCP, 8085, 46658, &[(true, &d)]), Some("TencentGames"));
}

#[test]
fn near_misses() {
    let a = msg("3366000b000c", 120);
    assert_eq!(run(&INSPECTOR, TCP, 31003, 47046, false, &a), Probe::NotForUs);
    let c = msg("aa000000 010203040506 10e68602", 120);
    assert_eq!(run(&INSPECTOR, TCP, 65010, 43300, false, &c), Probe::NotForUs);
    let d = msg("00000075 7801", 120); // length off by one
    assert_eq!(run(&INSPECTOR, TCP, 8085, 46658, false, &d), Probe::NotForUs);
    let short = msg("3366000b000b", 50);
    assert_eq!(run(&INSPECTOR, TCP, 31003, 47046, false, &short), Probe::NotForUs);
}
