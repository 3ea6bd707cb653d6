use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// viber.pcap frame 261 (first 40 of 257 bytes): a call set-up.
const SETUP: &str = "edf601000500ac19358c8f64e44707ae27541100a8c043b832000000430100100100ae3992916301";

#[test]
fn corpus_vector() {
    assert_eq!(classify(UDP, 7985, 47171, &[(true, &hex(SETUP))]), Some("Viber"));
}

#[test]
fn tcp_message() {
    // viber.pcap, flow 41184 -> 5242: a 24-byte message.
    let m = hex("180000000000fcff05800900000000000000000033000000");
    assert_eq!(classify(TCP, 5242, 41184, &[(true, &m)]), Some("Viber"));
    assert_eq!(run(&INSPECTOR, TCP, 5242, 41184, false, &m[..23]), Probe::NotForUs);
}

#[test]
fn header_checked() {
    let mut v = hex(SETUP);
    v[4] = 6;
    assert_eq!(run(&INSPECTOR, UDP, 7985, 4000, false, &v), Probe::NotForUs);
}
