use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// Headers as nDPI's i3d.c tests them; the rest is filler, 80 bytes in all (its minimum is 74).
fn dgram(head: &str) -> Vec<u8> {
    let mut v = hex(head);
    v.resize(80, 0x55);
    v
}

#[test]
fn both_headers() {
    let a = dgram("00010046 0003cfa8");
    assert_eq!(classify(UDP, 40000, 50000, &[(true, &a)]), Some("i3D"));
    let b = dgram("9078 1234 5678abcd 0003cfa9 bede0003");
    assert_eq!(classify(UDP, 40000, 50001, &[(true, &b)]), Some("i3D"));
}

#[test]
fn near_misses() {
    let a = dgram("00030046 0003cfa8");
    assert_eq!(run(&INSPECTOR, UDP, 40000, 50000, false, &a), Probe::NotForUs);
    let b = dgram("9078 1234 5678abcd 0003cfa9 bede0004");
    assert_eq!(run(&INSPECTOR, UDP, 40000, 50000, false, &b), Probe::NotForUs);
    // The right header in too short a datagram.
    let short = &dgram("00010046 0003cfa8")[..73];
    assert_eq!(run(&INSPECTOR, UDP, 40000, 50000, false, short), Probe::NotForUs);
}
