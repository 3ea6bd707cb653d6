use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// hart_ip.pcap frame 28: a session initiate request (13 bytes).
const INIT: &str = "010000000002000d0100007530";

#[test]
fn corpus_vector() {
    assert_eq!(classify(TCP, 5094, 49559, &[(true, &hex(INIT))]), Some("HART-IP"));
}

#[test]
fn length_checked() {
    let v = hex(INIT);
    assert_eq!(run(&INSPECTOR, TCP, 5094, 4000, false, &v[..12]), Probe::NotForUs);
}
