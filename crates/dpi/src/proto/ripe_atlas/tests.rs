use super::*;
use crate::proto::testkit::{classify, probe as run};

// nDPI's rule tests only the marker and the length (25 bytes); the rest here is filler (an
// RFC 5737 address and digits).
const PROBE: &[u8] = b"MGLNDD_192.0.2.1_00000000";

#[test]
fn magellan_probe() {
    assert_eq!(PROBE.len(), 25);
    assert_eq!(classify(UDP, 40000, 40001, &[(true, PROBE)]), Some("RipeAtlas"));
    assert_eq!(classify(UDP, 5000, 50000, &[(true, PROBE)]), Some("RipeAtlas"));
}

#[test]
fn near_misses() {
    let mut v = PROBE.to_vec();
    v.push(b'0'); // 26 bytes
    assert_eq!(run(&INSPECTOR, UDP, 40002, 40003, false, &v), Probe::NotForUs);
    let v = b"MGLNDE_192.0.2.1_00000000";
    assert_eq!(run(&INSPECTOR, UDP, 40002, 40003, false, v), Probe::NotForUs);
}
