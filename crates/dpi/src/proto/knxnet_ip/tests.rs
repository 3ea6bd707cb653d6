use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// Captured from xknx 4.0.0 (PyPI) in routing mode in two network namespaces (scripts/netcap,
// scenario "knx"; tshark 4.0.17 dissects it as kip:cemi), sent to 224.0.23.12:3671: a
// ROUTING_INDICATION (0x0530, KNX 03.08.05) of 17 bytes carrying a cEMI L_Data.ind (0x29, no
// additional info, control 0xbc 0xe0, source 15.15.250 (xknx's default address), group 0/0/1,
// length 1, a GroupValueWrite of 1).
const ROUTING_IND: &str = "06100530 0011 2900bce0 fffa 0001 01 0081";
// A TUNNELLING_ACK (0x0421, 10 bytes): connection header length 4, channel 1, sequence 0,
// status 0.
const TUNNEL_ACK: &str = "06100421 000a 04010000";
// A SEARCH_REQUEST (0x0201, 14 bytes) with its discovery endpoint HPAI (UDP, 192.168.1.24:3671).
const SEARCH_REQ: &str = "06100201 000e 0801c0a801180e57";

#[test]
fn whole_registry_names_knx() {
    assert_eq!(classify(UDP, 3671, 35158, &[(true, &hex(ROUTING_IND))]), Some("KNXnet_IP"));
    assert_eq!(classify(UDP, 3671, 41343, &[(true, &hex(SEARCH_REQ))]), Some("KNXnet_IP"));
    // Two frames in one TCP segment.
    let mut two = hex(TUNNEL_ACK);
    two.extend_from_slice(&hex(ROUTING_IND));
    assert_eq!(classify(TCP, 3671, 54445, &[(false, &two)]), Some("KNXnet_IP"));
    // The header decides off port 3671 too.
    assert_eq!(classify(UDP, 40000, 41343, &[(true, &hex(ROUTING_IND))]), Some("KNXnet_IP"));
}

#[test]
fn near_misses() {
    let ok = hex(ROUTING_IND);
    assert_eq!(run(&INSPECTOR, UDP, 3671, 4000, false, &ok), Probe::Certain(&LABEL));
    let mut v = ok.clone();
    v[1] = 0x20; // protocol version 2.0
    assert_eq!(run(&INSPECTOR, UDP, 3671, 4000, false, &v), Probe::NotForUs);
    let mut v = ok.clone();
    v[3] = 0x34; // routing service 0x0534 does not exist
    assert_eq!(run(&INSPECTOR, UDP, 3671, 4000, false, &v), Probe::NotForUs);
    let mut v = ok.clone();
    v[5] = 0x12; // total length one more than the datagram
    assert_eq!(run(&INSPECTOR, UDP, 3671, 4000, false, &v), Probe::NotForUs);
    // Over TCP, what follows a frame must be another frame.
    let mut two = hex(TUNNEL_ACK);
    two.extend_from_slice(b"HTTP/1.1 200 OK\r\n");
    assert_eq!(run(&INSPECTOR, TCP, 3671, 4000, true, &two), Probe::NotForUs);
    // A header claiming fewer than 10 bytes.
    assert_eq!(run(&INSPECTOR, UDP, 3671, 4000, false, &hex("06100421 0006")), Probe::NotForUs);
}
