use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// OFPT_HELLO of OpenFlow 1.3 (spec 1.3.5 section 7.5.1) with a version bitmap element
// (type 1, length 8, bitmap 0x00000010): 16 bytes; openflow.pcap.out shows TCP to 6653.
const HELLO: &str = "04 00 0010 00000001 0001 0008 00000010";

#[test]
fn hello_on_6653() {
    assert_eq!(classify(TCP, 6653, 49234, &[(true, &hex(HELLO))]), Some("OpenFlow"));
    // HELLO then FEATURES_REQUEST (type 5) in one segment.
    let two = hex("04 00 0008 00000001 04 05 0008 00000002");
    assert_eq!(run(&INSPECTOR, TCP, 6653, 49234, false, &two), Probe::Certain(&LABEL));
    // Off the OpenFlow ports the registry never asks it.
    assert_eq!(classify(TCP, 7000, 49234, &[(true, &hex(HELLO))]), None);
}

#[test]
fn near_misses() {
    for h in [
        "07 00 0008 00000001",                   // version 7
        "04 30 0008 00000001",                   // type 48
        "04 00 0004 00000001",                   // length under the header
        "04 00 0008 00000001 01 00 0008 00000002", // two versions
        "04 05 0008 00000001",                   // not opening with HELLO
        "04 00 0010 00000001",                   // HELLO longer than the segment
    ] {
        assert_eq!(run(&INSPECTOR, TCP, 6653, 4000, false, &hex(h)), Probe::NotForUs, "{h}");
    }
}
