use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// activision.pcap frames 16 and 17: the opening (0d02) and the answer (0c02).
const OPEN: &str = "0d0200c4234a84b4b134cfffd40f7e9a37c0a80015020c2d3f7036b587";
const ANSWER: &str = "0c0200c4234a84b4b134cfffd40f7e9a37c0a80015020c2d3f7036b587";

#[test]
fn corpus_vector() {
    let (o, a) = (hex(OPEN), hex(ANSWER));
    assert_eq!(classify(UDP, 34741, 3074, &[(true, &o), (false, &a)]), Some("Activision"));
}

#[test]
fn one_side_is_not_enough() {
    assert_eq!(run(&INSPECTOR, UDP, 34741, 3074, false, &hex(OPEN)), Probe::Unsure);
    let o = hex(OPEN);
    assert_eq!(run(&INSPECTOR, UDP, 34741, 3074, false, &o[..17]), Probe::NotForUs);
    // A PTPv2 signalling message (type 0x0c, version 2, its length 44 at byte 2).
    let mut ptp = vec![0x0c, 0x02, 0x00, 44];
    ptp.resize(44, 0);
    assert_eq!(run(&INSPECTOR, UDP, 5000, 4000, false, &ptp), Probe::NotForUs);
    // ptpv2.pcap, frame 1: a signalling message of 54 bytes in a 56-byte datagram, moved off
    // udp/320 (it was Activision's with an exact-length test).
    let mut padded = vec![0x0c, 0x02, 0x00, 54];
    padded.resize(56, 0);
    assert_eq!(run(&INSPECTOR, UDP, 33088, 33088, false, &padded), Probe::NotForUs);
    assert_eq!(run(&INSPECTOR, UDP, 33088, 33088, true, &padded), Probe::NotForUs);
}
