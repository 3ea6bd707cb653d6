use super::*;
use crate::proto::testkit::{classify, probe as run};

#[test]
fn ica_detect_string() {
    // The ICA server's detect string, sent first, on ICA's registered port 1494 (IANA "ica").
    assert_eq!(classify(TCP, 1494, 45225, &[(false, b"\x7f\x7fICA\x00")]), Some("Citrix"));
    assert_eq!(run(&INSPECTOR, TCP, 1494, 45225, false, b"\x07\x07ICA\x00"), Probe::Certain(&LABEL));
    let twice = b"\x7f\x7fICA\x00\x7f\x7fICA\x00";
    assert_eq!(run(&INSPECTOR, TCP, 1494, 45225, true, twice), Probe::Certain(&LABEL));
    assert_eq!(run(&INSPECTOR, TCP, 2598, 45225, false, b"\x1aCGP/01\x00\x01"), Probe::Certain(&LABEL));
}

#[test]
fn near_misses() {
    let cases: &[&[u8]] = &[
        b"\x7f\x7fICB\x00",
        b"\x7f\x7fICA\x00\x01",
        b"\x7f\x07ICA\x00",
        b"\x1aCGP/02",
        b"ICA\x00",
    ];
    for c in cases {
        assert_eq!(run(&INSPECTOR, TCP, 1494, 4000, true, c), Probe::NotForUs, "{c:?}");
    }
}
