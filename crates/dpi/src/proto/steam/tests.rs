use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// A Client Discovery broadcast built byte by byte from the discovery protocol's format
// (signature, header length 18, header {client id 0x1122334455667788, message type 0,
// instance id 0x0102030405}, body length 2, body {sequence number 1}), written to a pcap on
// udp/27036: tshark's steam_ihs_discovery dissector shows "Message Type: Client Discovery
// (0)", "Sequence Number: 1", every field consumed.
const DISCOVERY: &str = "ffffffff214c5fa0120000000888ef99abc5e88c911110001885888c9010020000000801";

#[test]
fn discovery_vector() {
    let v = hex(DISCOVERY);
    assert_eq!(run(&INSPECTOR, UDP, 27036, 27036, false, &v), Probe::Certain(&LABEL));
    assert_eq!(classify(UDP, 27036, 27036, &[(true, &v)]), Some("Steam"));
    // The structure alone names it off the port too.
    assert_eq!(classify(UDP, 40000, 50000, &[(true, &v)]), Some("Steam"));
}

#[test]
fn near_misses() {
    let no = |v: &[u8]| run(&INSPECTOR, UDP, 27036, 27036, false, v) == Probe::NotForUs;
    let v = hex(DISCOVERY);
    assert!(no(&v[..v.len() - 1])); // body shorter than its length
    let mut w = v.clone();
    w.push(0);
    assert!(no(&w)); // a byte past the body
    let mut w = v.clone();
    w[7] = 0xa1; // signature
    assert!(no(&w));
    let mut w = v.clone();
    w[23] = 0x0b; // message type 11
    assert!(no(&w));
    let mut w = v.clone();
    w[22] = 0x12; // field 2 as length-delimited
    assert!(no(&w));
    let mut w = v;
    w[8] = 0x13; // header length one too many
    assert!(no(&w));
}
