use super::*;
use crate::tests::{probe, to_server, vector};

/// srvloc.pcap, frame 1 (tshark: srvloc).
#[test]
fn message_from_corpus() {
    let v = vector!("slp");
    assert_eq!(probe(&INSPECTOR, to_server(UDP, 427), &v).0, Probe::Certain(&LABEL));
    assert_eq!(probe(&INSPECTOR, to_server(UDP, 427), &v[..v.len() - 2]).0, Probe::NotForUs);
}
