use super::*;
use crate::meta::Field;
use crate::tests::{probe, to_server, vector};

/// ssdp-m-search-ua.pcap, frame 1. tshark: http.host 239.255.255.250:1900, user agent
/// "Google Chrome/99.0.4844.74 Mac OS X".
#[test]
fn msearch_from_corpus() {
    let (r, m) = probe(&INSPECTOR, to_server(UDP, 1900), &vector!("ssdp_msearch"));
    assert_eq!(r, Probe::Certain(&LABEL));
    assert_eq!(m.get(Field::HttpHost), Some("239.255.255.250:1900"));
    assert_eq!(m.get(Field::UserAgent), Some("Google Chrome/99.0.4844.74 Mac OS X"));
}
