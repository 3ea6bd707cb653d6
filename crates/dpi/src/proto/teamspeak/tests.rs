use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// teamspeak3.pcap frame 1.
const INIT: &str = "545333494e49543100650000880dd05766005f5916e0ade76b610000000000000000";

#[test]
fn corpus_vector() {
    assert_eq!(classify(UDP, 9987, 53187, &[(true, &hex(INIT))]), Some("TeamSpeak"));
}

#[test]
fn too_short() {
    assert_eq!(run(&INSPECTOR, UDP, 9987, 4000, false, b"TS3INIT1"), Probe::NotForUs);
}
