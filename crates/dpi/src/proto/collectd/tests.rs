use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// collectd.pcap frame 11, its first three parts: host "devlap.fritz.box", high-resolution
// time, high-resolution interval.
const PARTS: &str = "000000156465766c61702e667269747a2e626f78000008000c18aa86d9ffbbcaa30009000c0000000280000000";

#[test]
fn corpus_vector() {
    assert_eq!(classify(UDP, 25826, 35988, &[(true, &hex(PARTS))]), Some("collectd"));
}

#[test]
fn parts_must_fill() {
    let v = hex(PARTS);
    assert_eq!(run(&INSPECTOR, UDP, 25826, 4000, false, &v[..v.len() - 1]), Probe::NotForUs);
}

/// A PTPv2 Sync message (linuxptp 3.1's ptp4l, the held-out set's `ptp` capture, frame 8;
/// tshark: ptp.v2.messagetype 0, length 44) is one "plugin" part of 44 bytes filling the
/// datagram; its body is no NUL-terminated string. It was collectd off udp/319.
#[test]
fn a_ptp_sync_is_not_collectd() {
    let sync = hex("0002002c00000200000000000000000000000000dab16efffebe38e10001000000fe00000000000000000000");
    assert_eq!(sync.len(), 44);
    assert_eq!(run(&INSPECTOR, UDP, 40319, 40319, false, &sync), Probe::NotForUs);
    // Each part's shape: a string part with an interior NUL, a time of 7 bytes, values whose
    // count disagrees with the length, a type no version defines.
    for bad in [
        "0000000a6100620000",
        "0001000b0000000000000000",
        "0006000f000202000000000000000000",
        "0011000800000000",
    ] {
        assert_eq!(run(&INSPECTOR, UDP, 25826, 4000, false, &hex(bad)), Probe::NotForUs, "{bad}");
    }
    // The same parts well formed: host "ab", a time, an empty type instance (collectd.pcap
    // has them: the NUL alone), one gauge value.
    let good = "000000076162000001000c000000000000000100050005000006000f0001010000000000000000";
    assert_eq!(run(&INSPECTOR, UDP, 25826, 4000, false, &hex(good)), Probe::Certain(&LABEL));
}
