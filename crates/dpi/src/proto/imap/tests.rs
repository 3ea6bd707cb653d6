use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// imap.pcap frames 4 and 6: the greeting and "C00000 CAPABILITY".
const GREETING: &str = "2a204f4b20494d41503452657631205365727665722056657273696f6e20342e392e30342e3031320d0a";
const CAPA: &str = "433030303030204341504142494c4954590d0a";

#[test]
fn corpus_vectors() {
    assert_eq!(classify(TCP, 143, 46045, &[(false, &hex(GREETING))]), Some("IMAP"));
    assert_eq!(classify(TCP, 1143, 46045, &[(true, &hex(CAPA))]), Some("IMAP"));
}

#[test]
fn others_refused() {
    assert_eq!(run(&INSPECTOR, TCP, 143, 4000, true, b"+OK ready\r\n"), Probe::NotForUs);
    assert_eq!(run(&INSPECTOR, TCP, 143, 4000, false, b"C1 FOO\r\n"), Probe::NotForUs);
}
