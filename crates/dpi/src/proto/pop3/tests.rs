use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// pop3.pcap frame 4: "+OK POP server ready H migmxus005".
const GREETING: &str = "2b4f4b20504f50207365727665722072656164792048206d69676d7875733030350d0a";

#[test]
fn corpus_vector() {
    assert_eq!(classify(TCP, 110, 35287, &[(false, &hex(GREETING))]), Some("POP3"));
}

#[test]
fn other_greetings_refused() {
    assert_eq!(run(&INSPECTOR, TCP, 110, 4000, true, b"* OK IMAP4 ready\r\n"), Probe::NotForUs);
    assert_eq!(run(&INSPECTOR, TCP, 110, 4000, false, b"EHLO x\r\n"), Probe::NotForUs);
}
