use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// riotgames.pcap frame 1: the 53-byte request.
const REQ: &str = "a49f9c31a03242040100000000000000000000000000000000000000000000000000000098b99eebc2e012d8953cb11f2dea23460c";

#[test]
fn corpus_vector() {
    assert_eq!(classify(UDP, 7194, 59956, &[(true, &hex(REQ))]), Some("RiotGames"));
}

#[test]
fn trailer_and_size() {
    let mut v = hex(REQ);
    v.insert(0, 0); // 54 bytes: the trailer alone is not enough
    assert_eq!(run(&INSPECTOR, UDP, 7194, 4000, false, &v), Probe::NotForUs);
}
