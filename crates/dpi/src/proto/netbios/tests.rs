use super::*;
use crate::tests::{probe, to_server, vector};

/// netbios.pcap, frame 1 (tshark: NBNS query for XSTREAM_HY<00>).
#[test]
fn name_query_from_corpus() {
    let v = vector!("nbns");
    assert_eq!(probe(&INSPECTOR, to_server(UDP, 137), &v).0, Probe::Certain(&LABEL));
    // The same header elsewhere needs a well-encoded name; break one byte of it.
    let mut w = v.clone();
    w[14] = b'z';
    assert_eq!(probe(&INSPECTOR, to_server(UDP, 5000), &w).0, Probe::NotForUs);
}
