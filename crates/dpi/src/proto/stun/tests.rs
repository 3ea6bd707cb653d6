use super::*;
use crate::tests::{probe, to_server, vector};

/// stun.pcap, frame 16 (tshark: STUN).
#[test]
fn message_from_corpus() {
    let v = vector!("stun");
    assert_eq!(probe(&INSPECTOR, to_server(UDP, 3478), &v).0, Probe::Certain(&LABEL));
    // One byte more or less and the length no longer matches.
    assert_eq!(probe(&INSPECTOR, to_server(UDP, 3478), &v[..v.len() - 1]).0, Probe::NotForUs);
}
