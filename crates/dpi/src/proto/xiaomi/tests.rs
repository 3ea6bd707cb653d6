use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// xiaomi.pcap frame 39: the server's 66-byte answer (body length 0x36).
const ANSWER: &str = "c2fe000500000036000200160000001808001a0a7869616f6d692e636f6d2a04434f4e4e48000a0a383439393538353331311204663833321a02080022007e290b78";

#[test]
fn corpus_vector() {
    assert_eq!(classify(TCP, 5222, 45106, &[(false, &hex(ANSWER))]), Some("Xiaomi"));
}

#[test]
fn length_must_match() {
    let v = hex(ANSWER);
    assert_eq!(run(&INSPECTOR, TCP, 5222, 4000, true, &v[..60]), Probe::NotForUs);
}
