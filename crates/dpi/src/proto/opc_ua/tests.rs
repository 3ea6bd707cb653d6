use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// Captured from asyncua 2.1.0 (PyPI) client and server in two network namespaces
// (scripts/netcap, scenario "opcua"; tshark 4.0.17 dissects both as opcua). The Hello (OPC
// 10000-6 section 7.1.2.3): "HEL", 'F', size 67, protocol version 0, receive and send buffers
// of 0x7fffffff, no message or chunk limits, and the endpoint URL
// "opc.tcp://192.0.2.2:4840/wirespeed/" (35 bytes).
const HELLO: &str = "48454c46 43000000 00000000 ffffff7f ffffff7f 00000000 00000000 23000000
                     6f70632e7463703a2f2f3139322e302e322e323a343834302f7769726573706565642f";

fn hello() -> Vec<u8> {
    let v = hex(HELLO);
    assert_eq!(v.len(), 67);
    v
}

/// The server's Acknowledge (section 7.1.2.4): "ACK", 'F', size 28, version 0, buffers 65535,
/// maximum message size 0x06400000, maximum chunk count 1601.
const ACK: &str = "41434b46 1c000000 00000000 ffff0000 ffff0000 00004006 41060000";

#[test]
fn whole_registry_names_opc_ua() {
    let (h, a) = (hello(), hex(ACK));
    assert_eq!(classify(TCP, 4840, 47660, &[(true, &h), (false, &a)]), Some("OPC-UA"));
    assert_eq!(classify(TCP, 4840, 47660, &[(false, &a)]), Some("OPC-UA"));
    // The chunk header decides off port 4840 too.
    assert_eq!(classify(TCP, 48010, 57420, &[(true, &h)]), Some("OPC-UA"));
}

#[test]
fn near_misses() {
    let ok = hello();
    assert_eq!(run(&INSPECTOR, TCP, 4840, 4000, false, &ok), Probe::Certain(&LABEL));
    let mut v = ok.clone();
    v[3] = b'C'; // a Hello cannot be an intermediate chunk
    assert_eq!(run(&INSPECTOR, TCP, 4840, 4000, false, &v), Probe::NotForUs);
    let mut v = ok.clone();
    v[0] = b'h'; // lower-case type
    assert_eq!(run(&INSPECTOR, TCP, 4840, 4000, false, &v), Probe::NotForUs);
    let mut v = ok.clone();
    v[4] = 0x0f; // size 15, below any chunk
    assert_eq!(run(&INSPECTOR, TCP, 4840, 4000, false, &v), Probe::NotForUs);
    let mut v = ok.clone();
    v[12..16].copy_from_slice(&[0; 4]); // receive buffer 0 (below 8192)
    assert_eq!(run(&INSPECTOR, TCP, 4840, 4000, false, &v), Probe::NotForUs);
    let mut v = ok.clone();
    v[4] = 0x30; // size 48: the 8 bytes after it must then open another chunk, and do not
    assert_eq!(run(&INSPECTOR, TCP, 4840, 4000, false, &v), Probe::NotForUs);
    // A secure-channel chunk may be intermediate; the segment may end before it does.
    let msg = hex("4d534743 00100000 01000000");
    assert_eq!(run(&INSPECTOR, TCP, 4840, 4000, false, &msg), Probe::Certain(&LABEL));
}
