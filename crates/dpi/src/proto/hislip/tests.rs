use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// pyvisa-py 0.8.1's HiSLIP client (PyPI pyvisa-py) opening an instrument at 192.0.2.2 in
// another network namespace, captured with tcpdump (h2-hislip.pcap frame 4, the client's first
// payload): Initialize, client version 1.0, vendor "xx", sub-address "hislip0". tshark 4.0.17:
// eth:ip:tcp:hislip, "High-Speed LAN Instrument Protocol (Synchron), Initialize".
const INITIALIZE: &str = "485300000100787800000000000000076869736c697030";

#[test]
fn pyvisa_initialize() {
    assert_eq!(classify(TCP, 4880, 40000, &[(true, &hex(INITIALIZE))]), Some("HiSLIP"));
    // The opening message needs no port.
    assert_eq!(run(&INSPECTOR, TCP, 5025, 40000, false, &hex(INITIALIZE)), Probe::Certain(&LABEL));
}

#[test]
fn near_misses() {
    let mut v = hex(INITIALIZE);
    v[1] = b'T'; // prologue "HT"
    assert_eq!(run(&INSPECTOR, TCP, 4880, 40000, false, &v), Probe::NotForUs);
    let mut v = hex(INITIALIZE);
    v[15] = 8; // payload length past the segment
    assert_eq!(run(&INSPECTOR, TCP, 4880, 40000, false, &v), Probe::NotForUs);
    let mut v = hex(INITIALIZE);
    v[2] = 6; // Data (type 6) off port 4880
    assert_eq!(run(&INSPECTOR, TCP, 5025, 40000, false, &v), Probe::NotForUs);
    assert_eq!(run(&INSPECTOR, TCP, 4880, 40000, false, &v), Probe::Certain(&LABEL));
    v[2] = 60; // no such type
    assert_eq!(run(&INSPECTOR, TCP, 4880, 40000, false, &v), Probe::NotForUs);
}
