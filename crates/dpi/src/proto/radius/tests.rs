use super::*;
use crate::proto::testkit::{classify, probe as run};

/// An Access-Request as in fuzz-2020-02-16-11740.pcap frame 1 (code 1, id 0x0a), rebuilt
/// short: header, then a User-Name attribute of 6 bytes.
fn request() -> Vec<u8> {
    let mut v = vec![0x01, 0x0a, 0x00, 26];
    v.extend_from_slice(&[0x5e, 0x0e, 0x2b, 0x78, 0x77, 0x33, 0x14, 0x62]);
    v.extend_from_slice(&[0x8a, 0xe3, 0xd5, 0xea, 0x0e, 0xfe, 0x91, 0x5e]);
    v.extend_from_slice(&[1, 6, b'w', b'i', b'f', b'i']);
    v
}

#[test]
fn request_is_radius() {
    assert_eq!(classify(UDP, 1812, 29200, &[(true, &request())]), Some("Radius"));
}

#[test]
fn lengths_checked() {
    let mut v = request();
    v[3] = 27;
    assert_eq!(run(&INSPECTOR, UDP, 1812, 4000, false, &v), Probe::NotForUs);
    let mut w = request();
    w[21] = 7; // the attribute overruns the message
    assert_eq!(run(&INSPECTOR, UDP, 1812, 4000, false, &w), Probe::NotForUs);
}
