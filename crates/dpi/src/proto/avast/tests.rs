use super::*;
use crate::proto::testkit::{classify, probe as run};

/// A message as avast.pcap's clients send first: 150-byte frames, 96 bytes of TCP payload,
/// so the length field reads 0x0060.
fn msg(len: u16) -> Vec<u8> {
    let mut v = b"NOSA".to_vec();
    v.extend_from_slice(&len.to_be_bytes());
    v.resize(usize::from(len), 0x3c);
    v
}

#[test]
fn nosa_message_on_port_80() {
    assert_eq!(classify(TCP, 80, 62741, &[(true, &msg(96))]), Some("AVAST"));
}

#[test]
fn near_misses() {
    let mut v = msg(96);
    v.push(0); // length no longer the segment's
    assert_eq!(run(&INSPECTOR, TCP, 80, 62741, false, &v), Probe::NotForUs);
    let mut v = msg(96);
    v[0] = b'n';
    assert_eq!(run(&INSPECTOR, TCP, 80, 62741, false, &v), Probe::NotForUs);
    assert_eq!(run(&INSPECTOR, TCP, 80, 62741, false, b"NOSA\x00"), Probe::NotForUs);
    // Plain HTTP on 80 stays HTTP.
    let get = b"GET / HTTP/1.1\r\nHost: a\r\n\r\n";
    assert_eq!(classify(TCP, 80, 62741, &[(true, get)]), Some("HTTP"));
}
