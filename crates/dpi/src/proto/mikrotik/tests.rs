use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// Built from MikroTik's documented MNDP fields (no RouterOS here): sequence 7 and the TLVs MAC
// 02:00:00:00:00:02, identity, version "6.49.10 (long-term)", platform, uptime 3600 s, software
// id, board, unpack, interface "ether1", IPv4 192.0.2.2. tshark 4.0.17 dissects it on UDP port
// 5678 as "Mikrotik Neighbor Discovery Protocol" with every TLV named.
const ANNOUNCE: &str = "00000007000100060200000000020005000968322d726f7574657200070013362e34392e313020286c6f6e672d7465726d29000800084d696b726f54696b000a0004100e0000000b0009414243442d31323334000c00085242373530477233000e0001000010000665746865723100110004c0000202";

#[test]
fn spec_vector() {
    assert_eq!(classify(UDP, 5678, 5678, &[(true, &hex(ANNOUNCE))]), Some("Mikrotik"));
}

#[test]
fn near_misses() {
    let mut v = hex(ANNOUNCE);
    v[5] = 2; // MAC address TLV type 2
    assert_eq!(run(&INSPECTOR, UDP, 5678, 5678, false, &v), Probe::NotForUs);
    let mut v = hex(ANNOUNCE);
    v.push(0); // a trailing byte
    assert_eq!(run(&INSPECTOR, UDP, 5678, 5678, false, &v), Probe::NotForUs);
    let mut v = hex(ANNOUNCE);
    v[7] = 7; // MAC length 7: the walk no longer ends at the datagram's end
    assert_eq!(run(&INSPECTOR, UDP, 5678, 5678, false, &v), Probe::NotForUs);
    // The bare discovery request.
    assert_eq!(run(&INSPECTOR, UDP, 5678, 5678, false, &[0, 0, 0, 0]), Probe::NotForUs);
}

#[test]
fn off_port() {
    assert_eq!(run(&INSPECTOR, UDP, 5679, 5679, false, &hex(ANNOUNCE)), Probe::NotForUs);
}
