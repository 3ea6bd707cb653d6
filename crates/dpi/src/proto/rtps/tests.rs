use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// Eclipse Cyclone DDS (PyPI cyclonedds 11.0.1, vendor id 01.16), a writer and a reader of one
// topic in two network namespaces, captured with tcpdump (h2-rtps.pcap). tshark 4.0.17:
// eth:ip:udp:rtps, "Protocol version: 2.5".
// Frame 9: INFO_DST then ACKNACK, unicast between the participants.
const ACKNACK: &str = "5254505302050110011063de63bf7349c7d3795e0e010c0001100cab12c9a43b2afeaef706031800000200c7000200c200000000020000000000000002000000";
// Frame 12: one HEARTBEAT.
const HEARTBEAT: &str = "525450530205011001100cab12c9a43b2afeaef707011c0000000000000003c20000000001000000000000000100000002000000";

#[test]
fn cyclone_dds() {
    assert_eq!(classify(UDP, 33471, 49237, &[(true, &hex(ACKNACK))]), Some("RTPS"));
    assert_eq!(classify(UDP, 37219, 46927, &[(true, &hex(HEARTBEAT))]), Some("RTPS"));
}

#[test]
fn near_misses() {
    let mut v = hex(ACKNACK);
    v[3] = b'X'; // "RTPX"
    assert_eq!(run(&INSPECTOR, UDP, 7400, 40000, false, &v), Probe::NotForUs);
    let mut v = hex(ACKNACK);
    v[4] = 3; // version 3.5
    assert_eq!(run(&INSPECTOR, UDP, 7400, 40000, false, &v), Probe::NotForUs);
    let mut v = hex(ACKNACK);
    v[20] = 0x0a; // no such submessage
    assert_eq!(run(&INSPECTOR, UDP, 7400, 40000, false, &v), Probe::NotForUs);
    let mut v = hex(HEARTBEAT);
    v[21] = 0; // big-endian flag: the length reads 0x1c00, past the datagram
    assert_eq!(run(&INSPECTOR, UDP, 7400, 40000, false, &v), Probe::NotForUs);
    // Header alone, no submessage.
    assert_eq!(run(&INSPECTOR, UDP, 7400, 40000, false, &hex(HEARTBEAT)[..20]), Probe::NotForUs);
}
