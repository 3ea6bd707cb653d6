use super::*;
use crate::proto::testkit::{classify, probe as run};

// ripe_atlas.pcap: every flow is one 67-byte frame (25 bytes of UDP payload) to a random port,
// the text "11.111.11.111" visible after the marker. The separators and the tail after the
// address are a guess that fills the 25 bytes; only the marker and the length are tested.
const PROBE: &[u8] = b"MGLNDD_11.111.11.111_4712";

#[test]
fn magellan_probe() {
    assert_eq!(PROBE.len(), 25);
    assert_eq!(classify(UDP, 38409, 41059, &[(true, PROBE)]), Some("RipeAtlas"));
    assert_eq!(classify(UDP, 5081, 15422, &[(true, PROBE)]), Some("RipeAtlas"));
}

#[test]
fn near_misses() {
    let mut v = PROBE.to_vec();
    v.push(b'0'); // 26 bytes
    assert_eq!(run(&INSPECTOR, UDP, 4712, 36137, false, &v), Probe::NotForUs);
    let v = b"MGLNDE_11.111.11.111_4712";
    assert_eq!(run(&INSPECTOR, UDP, 4712, 36137, false, v), Probe::NotForUs);
}
