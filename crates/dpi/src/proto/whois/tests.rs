use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// Made here: Debian whois 5.5.17 (`whois -h 192.0.2.2 example.com`, and `AS64496`, which it
// sends lower-cased) from 192.0.2.1 to a one-shot Python socket server on 192.0.2.2:43, in
// network namespaces, captured with tcpdump; tshark dissects the queries as `whois`. Frame 16 of
// each capture.
const QUERY: &str = "6578616d706c652e636f6d0d0a";
const QUERY_AS: &str = "617336343439360d0a";

#[test]
fn captured_queries() {
    for q in [QUERY, QUERY_AS] {
        assert_eq!(run(&INSPECTOR, TCP, 43, 43708, false, &hex(q)), Probe::Certain(&LABEL));
    }
    assert_eq!(classify(TCP, 43, 43708, &[(true, &hex(QUERY))]), Some("Whois-DAS"));
}

#[test]
fn das_query_on_4343() {
    // Joker's documented query form.
    let q = b"domain:joker.com\r\n";
    assert_eq!(run(&INSPECTOR, TCP, 4343, 40000, false, q), Probe::Certain(&LABEL));
    // The client's port is not the service's.
    assert_eq!(run(&INSPECTOR, TCP, 40000, 43, false, q), Probe::NotForUs);
}

#[test]
fn near_misses() {
    for bad in [
        &b"example.com"[..],            // no CRLF
        b"example.com\r\nexample.org\r\n", // two lines
        b"\r\n",                          // empty
        b"exa\x01mple.com\r\n",           // control byte
    ] {
        assert_eq!(run(&INSPECTOR, TCP, 43, 40000, false, bad), Probe::NotForUs, "{bad:?}");
    }
    // Off its ports, and from the server.
    assert_eq!(run(&INSPECTOR, TCP, 4300, 40000, false, &hex(QUERY)), Probe::NotForUs);
    assert_eq!(run(&INSPECTOR, TCP, 43, 40000, true, &hex(QUERY)), Probe::NotForUs);
    assert_eq!(classify(TCP, 4300, 40000, &[(true, &hex(QUERY))]), None);
}
