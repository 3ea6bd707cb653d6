use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

#[test]
fn corpus_vector() {
    // rtmp.pcap frame 29: C0 and the start of C1 (1360 bytes of the 1537; first 16 kept,
    // zero-padded), then the server's S0 and S1 in a 1537-byte segment (rebuilt).
    let mut c = hex("030000000009007c02f778551eceab8e");
    c.resize(1360, 0);
    let mut s = vec![3u8];
    s.resize(1537, 0);
    assert_eq!(classify(TCP, 1935, 49757, &[(true, &c), (false, &s)]), Some("RTMP"));
    assert_eq!(run(&INSPECTOR, TCP, 1935, 49757, false, &c), Probe::Unsure);
    // The rest of C1 (177 bytes) completes the handshake, reassembled.
    let rest = vec![0x0bu8; 177];
    assert_eq!(classify(TCP, 1935, 49757, &[(true, &c), (true, &rest)]), Some("RTMP"));
}

#[test]
fn other_versions() {
    let mut c = vec![6u8];
    c.resize(1537, 0);
    assert_eq!(run(&INSPECTOR, TCP, 1935, 4000, false, &c), Probe::NotForUs);
}
