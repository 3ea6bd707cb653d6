use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

#[test]
fn corpus_vectors() {
    // oracle12.pcapng frame 4: CONNECT (212 bytes, version 0x13b = 315); first 24 kept.
    let mut c = hex("00d4000001000000013b012c0c412000ffff7f0800000100");
    c.resize(212, 0);
    assert_eq!(classify(TCP, 1521, 40226, &[(true, &c)]), Some("Oracle"));
    // Frame 6: the server asks to resend.
    assert_eq!(classify(TCP, 1521, 40226, &[(false, &hex("000800000b000000"))]), Some("Oracle"));
}

#[test]
fn length_checked() {
    assert_eq!(run(&INSPECTOR, TCP, 1521, 4000, true, &hex("000900000b000000")), Probe::NotForUs);
}
