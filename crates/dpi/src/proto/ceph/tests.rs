use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

#[test]
fn corpus_vector() {
    // ceph.pcap frame 4: the monitor's banner.
    assert_eq!(classify(TCP, 6789, 35556, &[(false, &hex("636570682076303237"))]), Some("Ceph"));
}

#[test]
fn other_banners() {
    assert_eq!(run(&INSPECTOR, TCP, 6789, 4000, true, b"ceph v1"), Probe::NotForUs);
}
