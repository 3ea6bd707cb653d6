use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// The headers as nDPI's tencent_games.c tests them; the bodies are filler, the ports arbitrary.
fn msg(head: &str, len: usize) -> Vec<u8> {
    let mut v = hex(head);
    v.resize(len, 0x21);
    v
}

#[test]
fn gcloud_headers() {
    let a = msg("3366000b000b", 120);
    assert_eq!(classify(TCP, 40000, 50000, &[(true, &a)]), Some("TencentGames"));
    let b = msg("4366aa00 0102030405060708 10e68601", 120);
    assert_eq!(classify(TCP, 40001, 50001, &[(true, &b)]), Some("TencentGames"));
    let c = msg("aa000000 010203040506 10e68601", 120);
    assert_eq!(classify(TCP, 40002, 50002, &[(true, &c)]), Some("TencentGames"));
    // Length 0x74 = 120 - 4, then a zlib header.
    let d = msg("00000074 7801", 120);
    assert_eq!(classify(TCP, 40003, 50003, &[(true, &d)]), Some("TencentGames"));
}

#[test]
fn near_misses() {
    let a = msg("3366000b000c", 120);
    assert_eq!(run(&INSPECTOR, TCP, 40000, 50000, false, &a), Probe::NotForUs);
    let c = msg("aa000000 010203040506 10e68602", 120);
    assert_eq!(run(&INSPECTOR, TCP, 40002, 50002, false, &c), Probe::NotForUs);
    let d = msg("00000075 7801", 120); // length off by one
    assert_eq!(run(&INSPECTOR, TCP, 40003, 50003, false, &d), Probe::NotForUs);
    let short = msg("3366000b000b", 50);
    assert_eq!(run(&INSPECTOR, TCP, 40000, 50000, false, &short), Probe::NotForUs);
}
