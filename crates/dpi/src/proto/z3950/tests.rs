use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// Captured from YAZ 5.34.0 (Debian yaz: yaz-client against yaz-ztest) in two network
// namespaces (scripts/netcap, scenario "z3950"; tshark 4.0.17 dissects both as z3950). The
// InitRequest (Z39.50-2003 section 3.2.1.1): protocolVersion [3] BIT STRING (versions 1-3),
// options [4] BIT STRING, preferredMessageSize [5] and exceptionalRecordSize [6] INTEGERs of
// 64 MiB, implementationId [110] "81", implementationName [111] "YAZ" and
// implementationVersion [112] "5.34.0" with its commit id.
const INIT_REQUEST: &str = "
    b452830200e0840300e9a28504040000008604040000009f6e0238319f6f0359415a9f702f352e33342e302064656330
    633861306237363231333234363863633832363463316232323065616531633637626437";
// yaz-ztest's InitResponse: the same fields and result [12] TRUE; implementationName
// "GFS/YAZ".
const INIT_RESPONSE: &str = "
    b559830200e0840300e9a28504040000008604040000008c01019f6e0238319f6f074746532f59415a9f702f352e3334
    2e302064656330633861306237363231333234363863633832363463316232323065616531633637626437";

fn init_request() -> Vec<u8> {
    hex(INIT_REQUEST)
}

#[test]
fn init_request_anywhere() {
    let i = init_request();
    assert_eq!(classify(TCP, 210, 46046, &[(true, &i)]), Some("Z3950"));
    // The same InitRequest off IANA's port 210.
    assert_eq!(classify(TCP, 9999, 46046, &[(true, &i)]), Some("Z3950"));
    assert_eq!(run(&INSPECTOR, TCP, 210, 46046, true, &hex(INIT_RESPONSE)), Probe::Certain(&LABEL));
    // A response needs its result [12] field: the request's fields under the response tag.
    let mut r = i.clone();
    r[0] = 0xb5;
    assert_eq!(run(&INSPECTOR, TCP, 210, 4000, true, &r), Probe::NotForUs);
}

#[test]
fn near_misses() {
    let ok = init_request();
    // A missing required field (drop protocolVersion), a universal-class field, a length that
    // is not the segment's, a searchRequest identifier.
    let mut no_version = vec![0xb4, ok[1] - 4];
    no_version.extend_from_slice(&ok[6..]);
    let mut universal = ok.clone();
    universal[2] = 0x03;
    let mut long = ok.clone();
    long[1] += 1;
    let mut search = ok.clone();
    search[0] = 0xb6;
    for (i, v) in [no_version, universal, long, search].iter().enumerate() {
        assert_eq!(run(&INSPECTOR, TCP, 210, 4000, false, v), Probe::NotForUs, "case {i}");
    }
}
