use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// Built from IEC 61375-2-3 Annex A (no TRDP stack installs here; tshark 4.0.17 has no TRDP
// dissector and shows "data"), the FCS computed with Python's zlib.crc32 and written
// little-endian: a process data 'Pd' telegram, ComId 1000, sequence 1, 8 bytes of data;
const PD: &str = "0000000101005064000003e80000000000000000000000080000000000000000000000003ee4fa100011223344556677";
// a message data reply 'Mr', ComId 2000, a session id, timeout 2 s, URIs "h2-caller" and
// "h2-replier", 4 bytes of data.
const MD: &str = "0000000701004d72000007d0000000000000000000000004000000000123456789abcdef0123456789abcdef001e848068322d63616c6c6572000000000000000000000000000000000000000000000068322d7265706c696572000000000000000000000000000000000000000000007bc15a13deadbeef";

#[test]
fn spec_vectors() {
    assert_eq!(classify(UDP, 17224, 17224, &[(true, &hex(PD))]), Some("TRDP"));
    assert_eq!(classify(UDP, 17225, 40000, &[(true, &hex(MD))]), Some("TRDP"));
    assert_eq!(classify(TCP, 17225, 40000, &[(true, &hex(MD))]), Some("TRDP"));
}

#[test]
fn near_misses() {
    let mut v = hex(PD);
    v[15] ^= 1; // a changed topography counter: the FCS no longer matches
    assert_eq!(run(&INSPECTOR, UDP, 17224, 17224, false, &v), Probe::NotForUs);
    let mut v = hex(PD);
    v[6] = b'X'; // message type "Xd"
    assert_eq!(run(&INSPECTOR, UDP, 17224, 17224, false, &v), Probe::NotForUs);
    let mut v = hex(PD);
    v[4] = 2; // version 2.0
    assert_eq!(run(&INSPECTOR, UDP, 17224, 17224, false, &v), Probe::NotForUs);
    // The header alone with its dataset missing.
    assert_eq!(run(&INSPECTOR, UDP, 17224, 17224, false, &hex(PD)[..44]), Probe::NotForUs);
}
