use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// someip_sd_sample.pcap frame 3: a service-discovery notification (44 bytes).
const SD: &str = "ffff8100000000240000000201010200c0000000000000100700000000eb00000100001e0000000100000000";

#[test]
fn corpus_vector() {
    assert_eq!(classify(UDP, 30490, 30490, &[(true, &hex(SD))]), Some("SOMEIP"));
}

#[test]
fn length_and_version() {
    let v = hex(SD);
    assert_eq!(run(&INSPECTOR, UDP, 30490, 4000, false, &v[..43]), Probe::NotForUs);
    let mut w = hex(SD);
    w[12] = 2;
    assert_eq!(run(&INSPECTOR, UDP, 30490, 4000, false, &w), Probe::NotForUs);
}
