use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// resp.pcap frame 4: "*1\r\n$7\r\nCOMMAND\r\n".
const CMD: &str = "2a310d0a24370d0a434f4d4d414e440d0a";

#[test]
fn corpus_vector() {
    assert_eq!(classify(TCP, 6379, 51882, &[(true, &hex(CMD))]), Some("RESP"));
}

#[test]
fn lengths_checked() {
    assert_eq!(run(&INSPECTOR, TCP, 6379, 4000, false, b"*1\r\n$6\r\nCOMMAND\r\n"), Probe::NotForUs);
    assert_eq!(run(&INSPECTOR, TCP, 6379, 4000, false, b"*1\r\n"), Probe::NotForUs);
}
