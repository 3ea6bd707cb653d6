use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

/// A Hello built by hand from OPC 10000-6 section 7.1.2.3: "HEL", 'F', size 56, protocol
/// version 0, receive and send buffers of 65536, no message or chunk limits, and the endpoint
/// URL "opc.tcp://127.0.0.1:4840" (24 bytes).
fn hello() -> Vec<u8> {
    let mut v = b"HELF".to_vec();
    v.extend_from_slice(&hex("38000000 00000000 00000100 00000100 00000000 00000000 18000000"));
    v.extend_from_slice(b"opc.tcp://127.0.0.1:4840");
    assert_eq!(v.len(), 56);
    v
}

/// The Acknowledge (section 7.1.2.4): "ACK", 'F', size 28, version 0, buffers 65536.
const ACK: &str = "41434b46 1c000000 00000000 00000100 00000100 00000000 00000000";

#[test]
fn whole_registry_names_opc_ua() {
    let (h, a) = (hello(), hex(ACK));
    assert_eq!(classify(TCP, 4840, 57420, &[(true, &h), (false, &a)]), Some("OPC-UA"));
    assert_eq!(classify(TCP, 4840, 57420, &[(false, &a)]), Some("OPC-UA"));
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
    v[14] = 0; // receive buffer 0 (below 8192)
    assert_eq!(run(&INSPECTOR, TCP, 4840, 4000, false, &v), Probe::NotForUs);
    let mut v = ok.clone();
    v[4] = 0x30; // size 48: the 8 bytes after it must then open another chunk, and do not
    assert_eq!(run(&INSPECTOR, TCP, 4840, 4000, false, &v), Probe::NotForUs);
    // A secure-channel chunk may be intermediate; the segment may end before it does.
    let msg = hex("4d534743 00100000 01000000");
    assert_eq!(run(&INSPECTOR, TCP, 4840, 4000, false, &msg), Probe::Certain(&LABEL));
}
