use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// fastcgi.pcap frame 4: BEGIN_REQUEST, role responder.
const BEGIN: &str = "01010001000800000001010000000000";

#[test]
fn corpus_vector() {
    assert_eq!(classify(TCP, 9000, 38254, &[(true, &hex(BEGIN))]), Some("FastCGI"));
}

#[test]
fn role_checked() {
    let mut v = hex(BEGIN);
    v[9] = 7;
    assert_eq!(run(&INSPECTOR, TCP, 9000, 4000, false, &v), Probe::NotForUs);
}
