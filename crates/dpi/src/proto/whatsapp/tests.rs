use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// whatsapp_login_call.pcap frame 82 (first 33 bytes): "WA", 1.5, a frame of 0x1a bytes.
const HELLO: &str = "5741010500001af80501a59189fc126950686f6e652d322e31322e322d35323232";

#[test]
fn corpus_vector() {
    assert_eq!(classify(TCP, 5222, 49202, &[(true, &hex(HELLO))]), Some("WhatsApp"));
}

#[test]
fn frame_must_fit() {
    let v = hex(HELLO);
    assert_eq!(run(&INSPECTOR, TCP, 5222, 4000, false, &v[..20]), Probe::NotForUs);
    assert_eq!(run(&INSPECTOR, TCP, 5222, 4000, false, b"WAIT FOR IT"), Probe::NotForUs);
}
