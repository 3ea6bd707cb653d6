use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

/// A frame built from nDPI's rule (dingtalk.c; the capture it was written from is not in the
/// corpus): `10`, a byte, the fixed 14 bytes, then 80 bytes of body.
fn frame() -> Vec<u8> {
    let mut v = hex("10 00 87800100 01000200 02646b03 0020");
    v.resize(96, b'a');
    v
}

#[test]
fn login_frame() {
    assert_eq!(classify(TCP, 443, 40000, &[(true, &frame())]), Some("DingTalk"));
}

#[test]
fn near_misses() {
    let f = frame();
    // 90 bytes is not enough (more than 90 are required).
    assert_eq!(run(&INSPECTOR, TCP, 443, 40000, false, &f[..90]), Probe::NotForUs);
    assert_eq!(run(&INSPECTOR, TCP, 443, 40000, false, &f[..91]), Probe::Certain(&LABEL));
    for i in [0, 2, 9, 15] {
        let mut g = f.clone();
        g[i] ^= 1;
        assert_eq!(run(&INSPECTOR, TCP, 443, 40000, false, &g), Probe::NotForUs, "byte {i}");
    }
    // Byte 1 is free.
    let mut g = f;
    g[1] = 0xff;
    assert_eq!(run(&INSPECTOR, TCP, 443, 40000, false, &g), Probe::Certain(&LABEL));
}
