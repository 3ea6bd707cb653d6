use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// Captured in network namespaces: the SkeldJS client (npm @skeldjs/client 2.15.17, game
// version 2021.11.9.0s, no authentication) connecting as "h3tester" to a stub server on
// 198.51.100.2:22023. Wireshark has no Among Us/Hazel dissector.
const HELLO_PKT: &str =
    "080001006242030308683374657374657200000000000000000106000205537465616dffffff7f";

#[test]
fn skeldjs_hello() {
    let v = hex(HELLO_PKT);
    assert_eq!(run(&INSPECTOR, UDP, 22023, 50000, false, &v), Probe::Certain(&LABEL));
    assert_eq!(classify(UDP, 22023, 50000, &[(true, &v)]), Some("AmongUs"));
    assert_eq!(classify(UDP, 22123, 50000, &[(true, &v)]), Some("AmongUs"));
}

#[test]
fn near_misses() {
    let no = |v: &[u8]| run(&INSPECTOR, UDP, 22023, 50000, false, v) == Probe::NotForUs;
    let v = hex(HELLO_PKT);
    let mut w = v.clone();
    w[0] = 9; // Disconnect, not Hello
    assert!(no(&w));
    let mut w = v.clone();
    w[3] = 1; // Hazel version
    assert!(no(&w));
    let mut w = v.clone();
    w[7] = 0x13; // a version in the year 12823
    assert!(no(&w));
    let mut w = v.clone();
    w[8] = 40; // name longer than allowed
    assert!(no(&w));
    let mut w = v.clone();
    w[10] = 0x01; // control byte in the name
    assert!(no(&w));
    assert!(no(&v[..19])); // nothing after the name
}
