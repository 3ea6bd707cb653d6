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
