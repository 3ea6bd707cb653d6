use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// FAX-Call-t38-CA-TDM-SIP-FB-1.pcap frames 45-47: PCMA (type 8), sequence 0, 1, 2; the
// 160-byte payloads are cut to 8 bytes (headers unchanged; nothing checks the payload size).
const P1: &str = "8008000067cf15a00eaf0eafd5d5d5d5d5d5d5d5";
const P2: &str = "8008000167cf16400eaf0eafd5d5d5d5d5d5d5d5";
const P3: &str = "8008000267cf16e00eaf0eafd5d5d5d5d5d5d5d5";
// rtcp_multiple_pkts_in_the_same_datagram.pcap frame 2: receiver report + SDES (cut after
// the report, whose length then closes the datagram).
const RR: &str = "81c9000701932db400000000010000010000bec200000001000000000000000000";

#[test]
fn corpus_vectors() {
    let (a, b, c) = (hex(P1), hex(P2), hex(P3));
    assert_eq!(
        classify(UDP, 16756, 15580, &[(true, &a), (true, &b), (true, &c)]),
        Some("RTP")
    );
    let rr = hex(RR);
    assert!(is_rtcp(rr.get(..32).unwrap()));
    assert_eq!(classify(UDP, 31601, 25963, &[(false, &rr[..32])]), Some("RTCP"));
}

#[test]
fn one_header_is_not_enough_and_bad_ones_are_refused() {
    assert_eq!(run(&INSPECTOR, UDP, 5004, 4000, false, &hex(P1)), Probe::Unsure);
    let mut v = hex(P1);
    v[0] = 0x40; // version 1
    assert_eq!(run(&INSPECTOR, UDP, 5004, 4000, false, &v), Probe::NotForUs);
    v[0] = 0x8f; // 15 CSRCs do not fit
    assert_eq!(run(&INSPECTOR, UDP, 5004, 4000, false, &v), Probe::NotForUs);
    // RTCP lengths that do not add up.
    assert!(!is_rtcp(&hex(RR)[..30]));
}
