use super::*;
use crate::tests::{probe, to_server, vector};

/// NTPv4.pcap, frame 1 (tshark: ntp); the same bytes off port 123 are not claimed.
#[test]
fn packet_from_corpus() {
    let v = vector!("ntp");
    assert_eq!(probe(&INSPECTOR, to_server(UDP, 123), &v).0, Probe::Certain(&LABEL));
    assert_eq!(probe(&INSPECTOR, to_server(UDP, 9999), &v).0, Probe::NotForUs);
}
