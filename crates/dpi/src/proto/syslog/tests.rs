use super::*;
use crate::proto::testkit::{classify, probe as run};

// rsh-syslog-false-positive.pcap frame 1 (start): an RFC 5424-style message over TCP.
const MSG: &[u8] = b"<167>2016-05-24T09:50:52.926451+02:00 ldap01 slapd[34534]: conn";

#[test]
fn corpus_vector() {
    assert_eq!(classify(TCP, 514, 9039, &[(true, MSG)]), Some("Syslog"));
    let mut framed = b"64 ".to_vec();
    framed.extend_from_slice(MSG);
    assert_eq!(classify(UDP, 5140, 9039, &[(true, MSG)]), Some("Syslog"));
    assert_eq!(classify(TCP, 6514, 9039, &[(true, &framed)]), Some("Syslog"));
}

#[test]
fn bad_priorities() {
    assert_eq!(run(&INSPECTOR, UDP, 514, 4000, false, b"<192>hello world"), Probe::NotForUs);
    assert_eq!(run(&INSPECTOR, UDP, 514, 4000, false, b"<html><body>"), Probe::NotForUs);
}
