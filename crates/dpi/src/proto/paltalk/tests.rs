use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// paltalk.pcapng flow 3 (tcp/7970): the client's only payload is 22 bytes (76-byte frame);
// flow 4 (port 6845): a 20-byte message (74-byte frame). Constants as in the module doc, the
// other bytes filler.
const SHORT: &str = "0102030405060708 00020001 01020304 5afdffff";
const LONG: &str = "0102 24c2e80b 0304050607080910111213 5b732b00 01";

#[test]
fn native_messages() {
    assert_eq!(classify(TCP, 7970, 50728, &[(true, &hex(LONG))]), Some("Paltalk"));
    assert_eq!(classify(TCP, 51887, 6845, &[(false, &hex(SHORT))]), Some("Paltalk"));
}

#[test]
fn near_misses() {
    let mut v = hex(SHORT);
    v[19] = 0xfe;
    assert_eq!(run(&INSPECTOR, TCP, 6845, 51887, false, &v), Probe::NotForUs);
    let mut v = hex(LONG);
    v.push(0); // 23 bytes
    assert_eq!(run(&INSPECTOR, TCP, 7970, 50728, false, &v), Probe::NotForUs);
}
