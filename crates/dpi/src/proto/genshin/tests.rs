use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// genshin-impact.pcap frames 1 and 2: connect and established.
const CONNECT: &str = "000000ff0000000000000000499602d2ffffffff";
const ESTABLISHED: &str = "00000145000318323a0da215499602d214514545";

#[test]
fn corpus_vectors() {
    assert_eq!(classify(UDP, 22101, 58766, &[(true, &hex(CONNECT))]), Some("GenshinImpact"));
    assert_eq!(
        classify(UDP, 22101, 58766, &[(false, &hex(ESTABLISHED))]),
        Some("GenshinImpact")
    );
}

#[test]
fn tcp_opening() {
    // genshin-impact.pcap, flow 39686 -> 80: the client's 42-byte opening.
    let o = hex("010000002a0700000000aec675e100004da6000000000000000000000000000000000000000062656a8d");
    assert_eq!(classify(TCP, 80, 39686, &[(true, &o)]), Some("GenshinImpact"));
    assert_eq!(run(&INSPECTOR, TCP, 80, 39686, false, &o[..41]), Probe::NotForUs);
}

#[test]
fn constant_checked() {
    let mut v = hex(CONNECT);
    v[15] = 0;
    assert_eq!(run(&INSPECTOR, UDP, 22101, 4000, false, &v), Probe::NotForUs);
}
