use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// A framed message built from nDPI's byte tests: length 0x0010 (16) little endian, header
// field flags 0x10 and version byte 0x13, then a message id and ten bytes of body.
const MSG: &str = "1000 1013 01020304 41424344454647484950";

#[test]
fn framed_message() {
    assert_eq!(
        classify(TCP, 11095, 40000, &[(true, &hex(MSG))]),
        Some("NestLogSink")
    );
    let v = hex("0600 0013 00000001");
    assert_eq!(run(&INSPECTOR, TCP, 11095, 40000, false, &v), Probe::Certain(&LABEL));
}

#[test]
fn near_misses() {
    // Wrong version byte, flags, length high byte, or a length too short for a header.
    for bad in ["1000 1014 01020304", "1000 2013 01020304", "1003 1013 01020304", "0400 1013 0102"] {
        assert_eq!(run(&INSPECTOR, TCP, 11095, 40000, false, &hex(bad)), Probe::Unsure, "{bad}");
    }
    // Off 11095 the engine never asks.
    assert_eq!(classify(TCP, 11096, 40000, &[(true, &hex(MSG))]), None);
}
