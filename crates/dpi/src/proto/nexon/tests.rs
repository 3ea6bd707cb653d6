use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// The constants of nDPI's nexon.c; the other bytes are filler, the ports arbitrary.
const LONG: &str = "18000000 64000000 0102030405060708 090a0b0c0d0e0f10";
const SHORT: &str = "01020304 163a992e 0506070809 0a0b0c0d0e0f10";

#[test]
fn login_messages() {
    assert_eq!(classify(TCP, 40000, 50000, &[(true, &hex(LONG))]), Some("Nexon"));
    assert_eq!(classify(TCP, 40001, 50001, &[(true, &hex(SHORT))]), Some("Nexon"));
}

#[test]
fn near_misses() {
    let mut v = hex(LONG);
    v.push(0); // 25 bytes
    assert_eq!(run(&INSPECTOR, TCP, 40000, 50000, false, &v), Probe::NotForUs);
    let mut v = hex(LONG);
    v[4] = 0x65;
    assert_eq!(run(&INSPECTOR, TCP, 40000, 50000, false, &v), Probe::NotForUs);
    let mut v = hex(SHORT);
    v[7] = 0x2f;
    assert_eq!(run(&INSPECTOR, TCP, 40001, 50001, false, &v), Probe::NotForUs);
}
