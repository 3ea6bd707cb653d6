use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// The constants of nDPI's paltalk.c, the other bytes filler, the ports arbitrary.
const SHORT: &str = "0102030405060708 00020001 01020304 5afdffff";
const LONG: &str = "0102 24c2e80b 0304050607080910111213 5b732b00 01";

#[test]
fn native_messages() {
    assert_eq!(classify(TCP, 40000, 50000, &[(true, &hex(LONG))]), Some("Paltalk"));
    assert_eq!(classify(TCP, 50001, 40001, &[(false, &hex(SHORT))]), Some("Paltalk"));
}

#[test]
fn near_misses() {
    let mut v = hex(SHORT);
    v[19] = 0xfe;
    assert_eq!(run(&INSPECTOR, TCP, 40001, 50001, false, &v), Probe::NotForUs);
    let mut v = hex(LONG);
    v.push(0); // 23 bytes
    assert_eq!(run(&INSPECTOR, TCP, 40000, 50000, false, &v), Probe::NotForUs);
}
