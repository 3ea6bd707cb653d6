use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// Captured in two network namespaces (scripts/netcap, scenario "openflow"; tshark 4.0.17
// dissects all three as openflow): os-ken 4.2.2's OpenFlow 1.3 encoder as the switch sends a
// bare OFPT_HELLO (spec 1.3.5 section 7.5.1: version 4, type 0, length 8, xid 1); the os-ken
// controller answers with its own HELLO (version 6, OpenFlow 1.5) and, the version agreed, a
// FEATURES_REQUEST (type 5) of version 4.
const SWITCH_HELLO: &str = "04 00 0008 00000001";
const CONTROLLER_HELLO: &str = "06 00 0008 67f8e1a6";
const FEATURES_REQUEST: &str = "04 05 0008 67f8e1a7";
// A HELLO with a version bitmap element (type 1, length 8, bitmap 0x00000010), built by hand
// from the same section: 16 bytes.
const HELLO: &str = "04 00 0010 00000001 0001 0008 00000010";

#[test]
fn hello_on_6653() {
    assert_eq!(classify(TCP, 6653, 47164, &[(true, &hex(SWITCH_HELLO))]), Some("OpenFlow"));
    assert_eq!(
        run(&INSPECTOR, TCP, 6653, 47164, true, &hex(CONTROLLER_HELLO)),
        Probe::Certain(&LABEL)
    );
    assert_eq!(
        classify(
            TCP,
            6653,
            47164,
            &[(true, &hex(SWITCH_HELLO)), (false, &hex(CONTROLLER_HELLO))]
        ),
        Some("OpenFlow")
    );
    assert_eq!(classify(TCP, 6653, 49234, &[(true, &hex(HELLO))]), Some("OpenFlow"));
    // The controller's HELLO and FEATURES_REQUEST came in two segments; a HELLO then
    // FEATURES_REQUEST of one version in one segment.
    let mut two = hex("04 00 0008 00000001");
    two.extend_from_slice(&hex(FEATURES_REQUEST));
    assert_eq!(run(&INSPECTOR, TCP, 6653, 47164, true, &two), Probe::Certain(&LABEL));
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

/// A TPKT header (RFC 1006: version 3, reserved 0, length) opens RDP's, H.323's, S7's and
/// MMS's segments and reads as an OpenFlow 1.2 HELLO with a body, which 1.2's HELLO has not.
/// With the corpus's ports moved to 6653 such flows were OpenFlow. A 1.2 HELLO of 8 bytes is
/// still OpenFlow; a 1.3 HELLO's element of another type is not.
#[test]
fn a_tpkt_segment_is_not_a_hello() {
    // An RDP connection request: TPKT (42 bytes in all), then COTP CR with a cookie.
    let mut rdp = vec![3, 0, 0, 42, 0x25, 0xe0, 0, 0, 0, 0, 0];
    rdp.extend_from_slice(b"Cookie: mstshash=administrato\r\n");
    assert_eq!(rdp.len(), 42);
    assert_eq!(run(&INSPECTOR, TCP, 6653, 40000, false, &rdp), Probe::NotForUs);
    assert_eq!(run(&INSPECTOR, TCP, 6653, 40000, false, &hex("03 00 0008 00000001")), Probe::Certain(&LABEL));
    let mut h = hex(HELLO);
    h[9] = 2;
    assert_eq!(run(&INSPECTOR, TCP, 6653, 40000, false, &h), Probe::NotForUs);
    assert_eq!(run(&INSPECTOR, TCP, 6653, 40000, false, &hex(HELLO)), Probe::Certain(&LABEL));
}
