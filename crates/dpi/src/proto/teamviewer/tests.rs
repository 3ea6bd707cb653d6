use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// teamviewer.pcap frames 4 and 6: two client packets starting 17 24 (first 16 bytes).
const P1: &str = "17240a20000000000000000000480080";
const P2: &str = "1724281800008000007fffffff808000";

#[test]
fn corpus_vectors() {
    let (a, b) = (hex(P1), hex(P2));
    assert_eq!(classify(TCP, 5938, 35732, &[(true, &a), (true, &b)]), Some("TeamViewer"));
    // teamviewer.pcap frame 238 (UDP, first 16 bytes).
    let u = hex("00000000000000000000031724475000");
    assert_eq!(classify(UDP, 36037, 34417, &[(true, &u)]), Some("TeamViewer"));
}

#[test]
fn one_packet_is_not_enough() {
    assert_eq!(run(&INSPECTOR, TCP, 5938, 4000, false, &hex(P1)), Probe::Unsure);
    assert_eq!(run(&INSPECTOR, TCP, 5938, 4000, false, &hex("1725")), Probe::NotForUs);
}
