use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// log4j-webapp-exploit.pcap frames 11 and 13: an anonymous bind request and its response.
const BIND: &str = "300c020101600702010304008000";
const BIND_OK: &str = "300c02010161070a010004000400";

#[test]
fn corpus_vectors() {
    assert_eq!(classify(TCP, 1389, 57650, &[(true, &hex(BIND))]), Some("LDAP"));
    assert_eq!(classify(TCP, 1389, 57650, &[(false, &hex(BIND_OK))]), Some("LDAP"));
}

#[test]
fn lengths_checked() {
    let mut v = hex(BIND);
    v.push(0);
    assert_eq!(run(&INSPECTOR, TCP, 389, 4000, false, &v), Probe::NotForUs);
    let mut w = hex(BIND);
    w[5] = 0x30; // a SEQUENCE where the operation should be
    assert_eq!(run(&INSPECTOR, TCP, 389, 4000, false, &w), Probe::NotForUs);
}
