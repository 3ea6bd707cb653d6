use super::*;
use crate::proto::testkit::{classify, probe as run};

#[test]
fn corpus_openings() {
    // stomp.pcapng, 192.168.88.231:34732 -> 192.168.88.198:61613 (nDPI: STOMP): the client's
    // first frame (27 bytes) and the start of the server's CONNECTED.
    let stomp: &[u8] = b"STOMP\naccept-version:1.1\n\n\0";
    assert_eq!(stomp.len(), 27);
    assert_eq!(classify(TCP, 61613, 34732, &[(true, stomp)]), Some("STOMP"));
    let connected: &[u8] = b"CONNECTED\nversion:1.1\nheart-beat:100,100\nsession:b3538f9e\n\n\0";
    assert_eq!(classify(TCP, 61613, 34732, &[(false, connected)]), Some("STOMP"));
    // Line ends may be CRLF (STOMP 1.2).
    let crlf: &[u8] = b"CONNECT\r\naccept-version:1.2\r\nhost:mq\r\n\r\n\0";
    assert_eq!(run(&INSPECTOR, TCP, 61613, 40000, false, crlf), Probe::Certain(&LABEL));
}

#[test]
fn near_misses() {
    for d in [
        &b"STOMP\n\n\0"[..],                      // no header
        b"CONNECT\naccept-version 1.1\n\n\0",    // no colon
        b"CONNECTX\naccept-version:1.1\n\n\0",   // another command
        b"SUBSCRIBE\nid:1\ndestination:/q\n\n\0", // not an opening
        b"CONNECT\naccept-version:1.1\n",        // no blank line yet
        b"CONNECT HTTP/1.1\r\nHost: a:443\r\n\r\n", // HTTP's CONNECT
    ] {
        assert_eq!(run(&INSPECTOR, TCP, 61613, 40000, false, d), Probe::NotForUs, "{d:?}");
    }
}
