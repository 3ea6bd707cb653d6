use super::*;
use crate::proto::testkit::{classify, probe as run};

/// A `NOSA` message of `len` bytes whose length field says so.
fn msg(len: u16) -> Vec<u8> {
    let mut v = b"NOSA".to_vec();
    v.extend_from_slice(&len.to_be_bytes());
    v.resize(usize::from(len), 0x3c);
    v
}

#[test]
fn nosa_message() {
    assert_eq!(classify(TCP, 8000, 40000, &[(true, &msg(40))]), Some("AVAST"));
    assert_eq!(classify(TCP, 80, 40000, &[(true, &msg(40))]), Some("AVAST"));
}

#[test]
fn near_misses() {
    let mut v = msg(40);
    v.push(0); // length no longer the segment's
    assert_eq!(run(&INSPECTOR, TCP, 80, 40000, false, &v), Probe::NotForUs);
    let mut v = msg(40);
    v[0] = b'n';
    assert_eq!(run(&INSPECTOR, TCP, 80, 40000, false, &v), Probe::NotForUs);
    assert_eq!(run(&INSPECTOR, TCP, 80, 40000, false, b"NOSA\x00"), Probe::NotForUs);
    // Plain HTTP on 80 stays HTTP.
    let get = b"GET / HTTP/1.1\r\nHost: a\r\n\r\n";
    assert_eq!(classify(TCP, 80, 40000, &[(true, get)]), Some("HTTP"));
}
