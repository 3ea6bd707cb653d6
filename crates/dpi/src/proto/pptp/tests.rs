use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

/// Start-Control-Connection-Request (RFC 2637 section 2.1): 156 bytes, protocol version 1.0,
/// framing and bearer capabilities, maximum channels, firmware, host name "cananian" (the
/// PLAIN TEXT of pptp.pcap.out) and an empty vendor string.
fn sccrq() -> Vec<u8> {
    let mut v = hex("009c 0001 1a2b3c4d 0001 0000 0100 0000 00000001 00000001 0000 0000");
    let mut host = b"cananian".to_vec();
    host.resize(64, 0);
    v.extend_from_slice(&host);
    v.resize(156, 0);
    v
}

#[test]
fn control_connection_request() {
    let m = sccrq();
    assert_eq!(m.len(), 156);
    assert_eq!(classify(TCP, 1723, 41366, &[(true, &m)]), Some("PPTP"));
    // The magic cookie is enough off the PPTP port too.
    assert_eq!(run(&INSPECTOR, TCP, 8000, 41366, false, &m), Probe::Certain(&LABEL));
}

#[test]
fn near_misses() {
    let ok = sccrq();
    let mut cookie = ok.clone();
    cookie[7] = 0x4e;
    let mut kind = ok.clone();
    kind[3] = 2; // management messages are not used
    let mut ctrl = ok.clone();
    ctrl[9] = 16;
    let mut res = ok.clone();
    res[11] = 1;
    let mut long = ok.clone();
    long[1] = 0x9d; // longer than the segment
    for (i, v) in [cookie, kind, ctrl, res, long].iter().enumerate() {
        assert_eq!(run(&INSPECTOR, TCP, 1723, 4000, false, v), Probe::NotForUs, "case {i}");
    }
}
