use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

/// An InitRequest (Z39.50-2003 section 3.2.1.1) encoded by hand: protocolVersion [3] BIT
/// STRING (versions 1-3), options [4] BIT STRING, preferredMessageSize [5] and
/// exceptionalRecordSize [6] INTEGERs of 1 MB, implementationName [111] and
/// implementationVersion [112] "5.27.1 872b" (the PLAIN TEXT of z3950.pcapng.out flow 2).
fn init_request() -> Vec<u8> {
    let mut c = hex("83 02 05 e0  84 03 00 e0 00  85 03 10 00 00  86 03 10 00 00");
    c.extend_from_slice(&hex("9f 6f 03"));
    c.extend_from_slice(b"YAZ");
    c.extend_from_slice(&hex("9f 70 0b"));
    c.extend_from_slice(b"5.27.1 872b");
    let mut v = vec![0xb4, c.len() as u8];
    v.extend_from_slice(&c);
    v
}

#[test]
fn init_request_anywhere() {
    let i = init_request();
    assert_eq!(classify(TCP, 210, 58921, &[(true, &i)]), Some("Z3950"));
    // z3950.pcapng.out flow 2 runs on port 9991.
    assert_eq!(classify(TCP, 9991, 46524, &[(true, &i)]), Some("Z3950"));
    // The response needs its result [12] field.
    let mut r = i.clone();
    r[0] = 0xb5;
    assert_eq!(run(&INSPECTOR, TCP, 210, 4000, true, &r), Probe::NotForUs);
    r.extend_from_slice(&hex("8c 01 ff"));
    r[1] += 3;
    assert_eq!(run(&INSPECTOR, TCP, 210, 4000, true, &r), Probe::Certain(&LABEL));
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
