use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// Built from 3GPP TS 29.244 (no PFCP implementation installs here) and checked with tshark
// 4.0.17, which dissects each as eth:ip:udp:pfcp with every element named and no expert note:
// Heartbeat Request (7.4.2.1, type 1) with a Recovery Time Stamp (8.2.65).
const HEARTBEAT: &str = "2001000c0000010000600004e55e2a80";
// Association Setup Request (7.4.4.1, type 5): Node ID IPv4 192.0.2.1 (8.2.38), Recovery Time Stamp.
const ASSOC: &str = "2005001500000200003c000500c000020100600004e55e2a80";
// Session Establishment Request (7.5.2, type 50) with S set, SEID 0: Node ID and F-SEID (8.2.37).
const SESSION: &str = "21320026000000000000000000000300003c000500c00002010039000d020000000000000001c0000201";

#[test]
fn spec_vectors() {
    assert_eq!(classify(UDP, 8805, 8805, &[(true, &hex(HEARTBEAT))]), Some("PFCP"));
    assert_eq!(classify(UDP, 8805, 40000, &[(true, &hex(ASSOC))]), Some("PFCP"));
    assert_eq!(classify(UDP, 8805, 40000, &[(true, &hex(SESSION))]), Some("PFCP"));
    // The elements suffice off the port.
    assert_eq!(run(&INSPECTOR, UDP, 5000, 40000, false, &hex(SESSION)), Probe::Certain(&LABEL));
}

#[test]
fn near_misses() {
    let mut v = hex(HEARTBEAT);
    v[0] = 0x40; // version 2
    assert_eq!(run(&INSPECTOR, UDP, 8805, 40000, false, &v), Probe::NotForUs);
    let mut v = hex(HEARTBEAT);
    v[0] = 0x21; // a node message with a SEID
    assert_eq!(run(&INSPECTOR, UDP, 8805, 40000, false, &v), Probe::NotForUs);
    let mut v = hex(HEARTBEAT);
    v[3] = 0x0d; // length one past the datagram
    assert_eq!(run(&INSPECTOR, UDP, 8805, 40000, false, &v), Probe::NotForUs);
    let mut v = hex(ASSOC);
    v[11] = 6; // Node ID's length runs past the elements' end
    assert_eq!(run(&INSPECTOR, UDP, 8805, 40000, false, &v), Probe::NotForUs);
    let mut v = hex(SESSION);
    v[1] = 60; // no such message type
    assert_eq!(run(&INSPECTOR, UDP, 8805, 40000, false, &v), Probe::NotForUs);
    // A bare header (no elements) only on port 8805.
    let bare = hex("200b000400000700");
    assert_eq!(run(&INSPECTOR, UDP, 8805, 40000, false, &bare), Probe::Certain(&LABEL));
    assert_eq!(run(&INSPECTOR, UDP, 5000, 40000, false, &bare), Probe::NotForUs);
}
