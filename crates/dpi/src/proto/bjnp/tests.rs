use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// bjnp.pcap frame 1: a discovery request with no payload.
const DISCOVER: &str = "424a4e500201000017a4000000000000";

#[test]
fn corpus_vector() {
    assert_eq!(classify(UDP, 8612, 50087, &[(true, &hex(DISCOVER))]), Some("BJNP"));
}

#[test]
fn length_checked() {
    let mut v = hex(DISCOVER);
    v.push(0);
    assert_eq!(run(&INSPECTOR, UDP, 8612, 4000, false, &v), Probe::NotForUs);
}
