use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// teredo.pcap frame 9: an IPv6 ICMPv6 echo (payload length 12) in UDP, 52 bytes.
const PING: &str = "60000000000c3a1520010000c2881c4c20f3359b46f93f462002c2881c4c000000000000c2881c4d8000eb0828f0b26f00000000";
// teredo.pcap frame 1: authentication indicator, then a router solicitation.
const RS: &str = "00010000b11b3fea46a9afe9006000000000083afffe800000000000000000fffffffffffeff02000000000000000000000000000285007d3800000000";

#[test]
fn corpus_vectors() {
    assert_eq!(classify(UDP, 3544, 51812, &[(true, &hex(PING))]), Some("Teredo"));
    assert_eq!(classify(UDP, 3544, 52513, &[(true, &hex(RS))]), Some("Teredo"));
}

#[test]
fn payload_length_checked() {
    let mut v = hex(PING);
    v.push(0);
    assert_eq!(run(&INSPECTOR, UDP, 3544, 4000, false, &v), Probe::NotForUs);
}
