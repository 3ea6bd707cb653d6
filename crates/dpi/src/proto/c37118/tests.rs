use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

/// ieee_c37118.pcap, TCP 192.168.0.20:36835 -> 192.168.0.241:4712 (nDPI: IEEE-C37118): a
/// command frame (type 4, version 1, 18 bytes, IDCODE 241, command 5: send config-2), CRC d7d0.
const COMMAND: &str = "aa41001200f100000000000000000005d7d0";
/// Same capture, UDP 192.168.0.10:4712 -> 192.168.0.60:4713: a data frame (type 0, 54 bytes).
const DATA: &str = "aa01003600f14893344a001eb852080042f68f24c7c36623430188cbc7c36332c7a956764742fe4b47a91cdd4743d1440000000047ef";

#[test]
fn corpus_frames() {
    assert_eq!(classify(TCP, 4712, 36835, &[(true, &hex(COMMAND))]), Some("IEEE-C37118"));
    assert_eq!(classify(UDP, 4713, 4712, &[(true, &hex(DATA))]), Some("IEEE-C37118"));
    // A CRC that checks is proof off the usual ports too.
    assert_eq!(run(&INSPECTOR, UDP, 9999, 40000, false, &hex(DATA)), Probe::Certain(&LABEL));
}

#[test]
fn near_misses() {
    let good = hex(COMMAND);
    for (at, v, why) in [
        (17, 0xd1, "CRC"),
        (1, 0x61, "frame type 6"),
        (1, 0x44, "version 4"),
        (3, 0x13, "frame size past the data"),
        (0, 0xab, "sync byte"),
    ] {
        let mut d = good.clone();
        d[at] = v;
        assert_eq!(run(&INSPECTOR, TCP, 4712, 36835, false, &d), Probe::NotForUs, "{why}");
    }
    assert_eq!(run(&INSPECTOR, TCP, 4712, 36835, false, &good[..10]), Probe::NotForUs);
}
