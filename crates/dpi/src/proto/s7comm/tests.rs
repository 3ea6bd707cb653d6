use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// s7comm.pcap frame 1: COTP connection request, destination TSAP 01 02 (PG).
const CR: &str = "0300001611e00000000700c1020100c2020102c0010a";

#[test]
fn corpus_vector() {
    assert_eq!(classify(TCP, 102, 4185, &[(true, &hex(CR))]), Some("S7Comm"));
}

#[test]
fn rdp_and_tsap() {
    // rdp.pcap frame 4: an X.224 request with RDP's negotiation, no TSAPs.
    let rdp = hex("030000130ee00000000000010008000b000000");
    assert_eq!(run(&INSPECTOR, TCP, 3389, 4000, false, &rdp), Probe::NotForUs);
    let mut v = hex(CR);
    v[17] = 0x10; // destination TSAP of another kind
    assert_eq!(run(&INSPECTOR, TCP, 102, 4000, false, &v), Probe::NotForUs);
}
