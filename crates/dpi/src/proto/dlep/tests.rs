use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// Built from RFC 8175 (no DLEP implementation installs here) and checked with tshark 4.0.17,
// which dissects each as "Dynamic Link Exchange Protocol" with every data item named:
// a Peer Discovery signal (section 12, signal type 1) with a Peer Type item "h2-router";
const DISCOVERY: &str = "444c45500001000e0004000a0068322d726f75746572";
// the modem's Peer Offer (type 2): Peer Type "h2-modem" and an IPv4 Connection Point
// 192.0.2.2 port 854;
const OFFER: &str = "444c455000020018000400090068322d6d6f64656d0002000700c00002020356";
// a Session Initialization message over TCP: Heartbeat Interval 60000 ms and Peer Type.
const INIT: &str = "00010016000500040000ea600004000a0068322d726f75746572";

#[test]
fn spec_vectors() {
    assert_eq!(classify(UDP, 854, 40000, &[(true, &hex(DISCOVERY))]), Some("DLEP"));
    assert_eq!(classify(UDP, 40000, 854, &[(true, &hex(OFFER))]), Some("DLEP"));
    assert_eq!(classify(TCP, 854, 40001, &[(true, &hex(INIT))]), Some("DLEP"));
}

#[test]
fn near_misses() {
    let mut v = hex(DISCOVERY);
    v[5] = 3; // signal type 3
    assert_eq!(run(&INSPECTOR, UDP, 854, 40000, false, &v), Probe::NotForUs);
    let mut v = hex(OFFER);
    v[7] += 1; // signal length past the datagram
    assert_eq!(run(&INSPECTOR, UDP, 854, 40000, false, &v), Probe::NotForUs);
    let mut v = hex(OFFER);
    v[9] = 0x50; // data item type 0x50
    assert_eq!(run(&INSPECTOR, UDP, 854, 40000, false, &v), Probe::NotForUs);
    // A message without the prefix is not a UDP signal.
    assert_eq!(run(&INSPECTOR, UDP, 854, 40000, false, &hex(INIT)), Probe::NotForUs);
    // Without its Heartbeat Interval, the bare message is not recognised.
    let mut v = hex(INIT);
    v[5] = 6; // item type 6 (Extensions Supported)
    assert_eq!(run(&INSPECTOR, TCP, 854, 40001, false, &v), Probe::NotForUs);
}
