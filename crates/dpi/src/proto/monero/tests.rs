use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// monero.pcap frame 4: a handshake request (command 1001), first 40 bytes.
const HS: &str = "0121010101010101060100000000000001e903000000000000010000000100000001110101010102";

#[test]
fn corpus_vector() {
    assert_eq!(classify(TCP, 18080, 48882, &[(true, &hex(HS))]), Some("Monero"));
}

#[test]
fn signature_checked() {
    let mut v = hex(HS);
    v[1] = 0x22;
    assert_eq!(run(&INSPECTOR, TCP, 18080, 4000, false, &v), Probe::NotForUs);
}
