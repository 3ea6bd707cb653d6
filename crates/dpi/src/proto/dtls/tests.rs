use super::*;
use crate::tests::{probe, to_server, vector};

/// dtls.pcap, frame 1 (tshark: DTLS ClientHello).
#[test]
fn client_hello_from_corpus() {
    let v = vector!("dtls_client_hello");
    assert_eq!(probe(&INSPECTOR, to_server(UDP, 4433), &v).0, Probe::Certain(&LABEL));
    assert_eq!(probe(&INSPECTOR, to_server(UDP, 4433), &v[..v.len() - 1]).0, Probe::NotForUs);
}
