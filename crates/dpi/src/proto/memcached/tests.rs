use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

#[test]
fn corpus_vectors() {
    // memcached.cap frames 4 and 6: "stats" and the start of its answer.
    assert_eq!(classify(TCP, 11211, 59604, &[(true, &hex("73746174730d0a"))]), Some("Memcached"));
    let stat = hex("535441542070696420383833370d0a5354415420757074696d65203139330d0a");
    assert_eq!(classify(TCP, 11211, 59604, &[(false, &stat)]), Some("Memcached"));
}

#[test]
fn others_refused() {
    assert_eq!(run(&INSPECTOR, TCP, 11211, 4000, false, b"GET / HTTP/1.1\r\n"), Probe::NotForUs);
    assert_eq!(run(&INSPECTOR, TCP, 11211, 4000, false, b"set k x 0 5\r\n"), Probe::NotForUs);
    assert_eq!(run(&INSPECTOR, TCP, 11211, 4000, false, b"set k 0 0 5\r\nhello\r\n"), Probe::Certain(&LABEL));
}
