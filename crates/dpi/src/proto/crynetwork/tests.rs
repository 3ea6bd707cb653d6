use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// crynet.pcap frame 31: 70 bytes, first byte 0x3c (60).
const HELLO: &str = "3c000008ed0000000000000000000000010000000700000003070000000c000000000000000c4d4487c64f047e40212d8b710ca45550523a5735ed45f2563cd2bbf8dae4fb50";

#[test]
fn corpus_vector() {
    assert_eq!(classify(UDP, 28665, 56970, &[(true, &hex(HELLO))]), Some("CryNetwork"));
}

#[test]
fn length_byte_checked() {
    let v = hex(HELLO);
    assert_eq!(run(&INSPECTOR, UDP, 28665, 4000, false, &v[..69]), Probe::NotForUs);
}
