use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// A framed Weave message as nest_log_sink.pcap's uploads start: length 0x0152 (338) little
// endian, header field flags 0x10 and version byte 0x13, then the message id and the start of
// the body (the device id 05CA02AC4414028 is visible in clear in the capture).
const MSG: &str = "5201 1013 01020304 3035434130324143343431343032380000";

#[test]
fn framed_message() {
    assert_eq!(
        classify(TCP, 11095, 63342, &[(true, &hex(MSG))]),
        Some("NestLogSink")
    );
    let v = hex("0600 0013 00000001");
    assert_eq!(run(&INSPECTOR, TCP, 11095, 63342, false, &v), Probe::Certain(&LABEL));
}

#[test]
fn near_misses() {
    // Wrong version byte, flags, length high byte, or a length too short for a header.
    for bad in ["5201 1014 01020304", "5201 2013 01020304", "5203 1013 01020304", "0400 1013 0102"] {
        assert_eq!(run(&INSPECTOR, TCP, 11095, 63342, false, &hex(bad)), Probe::Unsure, "{bad}");
    }
    // Off 11095 the engine never asks.
    assert_eq!(classify(TCP, 11096, 63342, &[(true, &hex(MSG))]), None);
}
