use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// FRRouting 8.4.4 ldpd (Debian frr 8.4.4-1.1~deb12u2) in two network namespaces, captured with
// tcpdump (h2-ldp.pcap); tshark 4.0.17 dissects each as ldp.
// Frame 1: a multicast Hello (type 0x0100) from 192.0.2.1 to 224.0.0.2.
const HELLO_PDU: &str = "00010026c000020100000100001c0000000104000004000f200004010004c00002010402000400000002";
// Frame 8: the active peer's Initialization (type 0x0200), the session's first TCP payload.
const INIT: &str = "0001002fc0000202000002000025000000030500000e000100b400000000c000020100008506000180850b0001808603000180";
// Frame 10: the passive peer's answer, an Initialization PDU then a KeepAlive PDU in one segment.
const INIT_KA: &str = "0001002fc0000201000002000025000000030500000e000100b400000000c000020200008506000180850b00018086030001800001000ec000020100000201000400000004";

#[test]
fn frr_ldp() {
    assert_eq!(classify(UDP, 646, 646, &[(true, &hex(HELLO_PDU))]), Some("LDP"));
    let session: &[(bool, &[u8])] = &[(true, &hex(INIT)), (false, &hex(INIT_KA))];
    assert_eq!(classify(TCP, 646, 52445, session), Some("LDP"));
    assert_eq!(run(&INSPECTOR, TCP, 646, 52445, true, &hex(INIT_KA)), Probe::Certain(&LABEL));
}

#[test]
fn near_misses() {
    let mut v = hex(HELLO_PDU);
    v[1] = 2; // version 2
    assert_eq!(run(&INSPECTOR, UDP, 646, 646, false, &v), Probe::NotForUs);
    let mut v = hex(HELLO_PDU);
    v[3] = 0x25; // PDU one byte short of the datagram
    assert_eq!(run(&INSPECTOR, UDP, 646, 646, false, &v), Probe::NotForUs);
    let mut v = hex(HELLO_PDU);
    v[10] = 0x05; // message type 0x0500
    assert_eq!(run(&INSPECTOR, UDP, 646, 646, false, &v), Probe::NotForUs);
    // An Initialization is not a Hello: over UDP it is refused.
    assert_eq!(run(&INSPECTOR, UDP, 646, 646, false, &hex(INIT)), Probe::NotForUs);
    // Over TCP, bytes after the first PDU must start another PDU.
    let mut v = hex(INIT_KA);
    v[52] = 9;
    assert_eq!(run(&INSPECTOR, TCP, 646, 52445, true, &v), Probe::NotForUs);
}
