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

// Captured in network namespaces: ValvePython steam 1.4.4's CMClient (PyPI) connecting to a
// stub CM on 198.51.100.2:27017. The stub's ChannelEncryptRequest was serialized by the same
// library's Msg class (universe Public, a 16-byte challenge); the client's
// ChannelEncryptResponse (EMsg 1304, a 128-byte encrypted session key, CRC) is its own.
// tshark has no Steam CM dissector (it guesses TLS on this port).
const CM_REQUEST: &str = "2c0000005654303117050000ffffffffffffffffffffffffffffffff01000000010000001111\
    1111111111111111111111111111";
const CM_RESPONSE: &str = "a40000005654303118050000ffffffffffffffffffffffffffffffff0100000080000000\
    9642dd86ac397924af9d0e051ecc257dd1666fa582ef162e2723b157b9987f1e526fe68db7537c41c44c76741e\
    cbca25664d6b56204c7775d901052fa075396544b469f30b2882672dc7fa4c21f06e3112373cb15374f4c4c7a1\
    7ccb680f56de2d39e92c44c15c14ef14cc2741ca3747df7dbbc2c3d158224455c4ac7805d80e3ee8e89400000000";

#[test]
fn cm_vectors() {
    let (req, resp) = (hex(CM_REQUEST), hex(CM_RESPONSE));
    assert_eq!(run(&INSPECTOR, TCP, 27017, 50728, true, &req), Probe::Certain(&LABEL));
    assert_eq!(run(&INSPECTOR, TCP, 27017, 50728, false, &resp), Probe::Certain(&LABEL));
    assert_eq!(classify(TCP, 27017, 50728, &[(false, &req), (true, &resp)]), Some("Steam"));
    assert_eq!(classify(TCP, 27030, 50728, &[(true, &resp)]), Some("Steam"));
}

#[test]
fn cm_near_misses() {
    let no = |v: &[u8]| run(&INSPECTOR, TCP, 27017, 50728, false, v) == Probe::NotForUs;
    let v = hex(CM_RESPONSE);
    assert!(no(&v[..v.len() - 1]));
    let mut w = v.clone();
    w[7] = b'2'; // VT02
    assert!(no(&w));
    let mut w = v.clone();
    w.extend_from_slice(b"\x04\x00\x00\x00VT02");
    assert!(no(&w)); // what follows is no frame
    let mut w = v;
    w.extend_from_slice(b"\x04\x00\x00\x00VT01");
    assert_eq!(run(&INSPECTOR, TCP, 27017, 50728, false, &w), Probe::Certain(&LABEL));
}
