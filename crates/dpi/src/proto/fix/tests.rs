use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// fix.pcap frame 7: "8=FIX.4.1|9=00014|35=0|112=farm|10=217|".
const HB: &str = "383d4649582e342e3101393d30303031340133353d31013131323d6661726d0131303d32313701";
// fix2.pcap frame 8 (first 24 bytes): "8=FIXT.1.1|9=62|35=A|49=".
const LOGON: &str = "383d464958542e312e3101393d36320133353d410134393d";

// fix.pcap frame 5 (flow 4000 -> 47968): a private BeginString "8=O|9=0019|35=P|".
const SHORT: &str = "383d4f01393d303031390133353d50010060000000d72804000002f92804";

#[test]
fn corpus_vectors() {
    assert_eq!(classify(TCP, 47968, 4000, &[(false, &hex(SHORT))]), Some("FIX"));
    assert_eq!(classify(TCP, 45578, 4000, &[(false, &hex(HB))]), Some("FIX"));
    assert_eq!(classify(TCP, 1024, 34962, &[(true, &hex(LOGON))]), Some("FIX"));
}

#[test]
fn body_length_required() {
    assert_eq!(run(&INSPECTOR, TCP, 1024, 4000, false, b"8=FIX.4.1\x019=5\x0110=0\x01"), Probe::NotForUs);
    assert_eq!(run(&INSPECTOR, TCP, 1024, 4000, false, b"8=FIXME please"), Probe::NotForUs);
}
