use super::*;
use crate::proto::testkit::{classify, probe as run};

// nats.pcap frames 18 and 20 (starts; the CONNECT closed with its CRLF).
const INFO: &[u8] = b"INFO {\"server_id\":\"NALG56HQZ4C4ILRHCGYWMCSBVC5W2QHX6WKGH7A\"}\r\n";
const CONNECT: &[u8] = b"CONNECT {\"verbose\":false,\"pedantic\":false,\"tls_required\":false}\r\n";

#[test]
fn corpus_vectors() {
    assert_eq!(classify(TCP, 4222, 54821, &[(false, INFO)]), Some("Nats"));
    assert_eq!(classify(TCP, 4222, 54821, &[(true, CONNECT)]), Some("Nats"));
}

#[test]
fn other_info() {
    assert_eq!(run(&INSPECTOR, TCP, 4222, 4000, true, b"INFO {\"a\":1}\r\n"), Probe::NotForUs);
}
