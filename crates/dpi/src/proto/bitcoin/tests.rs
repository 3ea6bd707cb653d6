use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

/// A `version` header laid out by the Bitcoin developer reference (message headers): mainnet
/// magic, "version" NUL-padded to 12 bytes, payload length 102 (0x66) little endian, checksum;
/// a connection opens with this command (developer reference, "Connecting To Peers"), mainnet
/// peers on tcp/8333 (its default port).
const VERSION: &str = "f9beb4d9 76657273696f6e0000000000 66000000 2ce3a8b1";

#[test]
fn version_header() {
    let mut v = hex(VERSION);
    v.extend_from_slice(&[0x7f; 102]);
    assert_eq!(classify(TCP, 8333, 55348, &[(true, &v)]), Some("BITCOIN"));
    // The header alone (a segment cut after it) is enough, on any port.
    assert_eq!(run(&INSPECTOR, TCP, 4000, 55348, false, &hex(VERSION)), Probe::Certain(&LABEL));
}

#[test]
fn near_misses() {
    // Another magic.
    let mut v = hex(VERSION);
    v[0] = 0xf8;
    assert_eq!(run(&INSPECTOR, TCP, 8333, 55348, false, &v), Probe::NotForUs);
    // Upper case, or a letter after the padding.
    let mut v = hex(VERSION);
    v[4] = b'V';
    assert_eq!(run(&INSPECTOR, TCP, 8333, 55348, false, &v), Probe::NotForUs);
    let mut v = hex(VERSION);
    v[15] = b'x';
    assert_eq!(run(&INSPECTOR, TCP, 8333, 55348, false, &v), Probe::NotForUs);
    // Payload over 32 MiB.
    let mut v = hex(VERSION);
    v[19] = 0x10;
    assert_eq!(run(&INSPECTOR, TCP, 8333, 55348, false, &v), Probe::NotForUs);
    // Too short for a header.
    assert_eq!(run(&INSPECTOR, TCP, 8333, 55348, false, &hex(VERSION)[..20]), Probe::NotForUs);
}
