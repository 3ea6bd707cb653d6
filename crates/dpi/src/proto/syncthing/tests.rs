use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// syncthing.pcap frame 20 (first 40 bytes).
const ANNOUNCE: &str = "2ea7d90b0a2092b76262996294825fc6cce6cf34794288282d73b5ecdf2dcb29bfd484c42d6f1219";

#[test]
fn corpus_vector() {
    assert_eq!(classify(UDP, 21027, 54977, &[(true, &hex(ANNOUNCE))]), Some("Syncthing"));
}

#[test]
fn magic_checked() {
    let v = hex(ANNOUNCE);
    assert_eq!(run(&INSPECTOR, UDP, 21027, 4000, false, &v[..20]), Probe::NotForUs);
    let mut w = hex(ANNOUNCE);
    w[3] = 0x0c;
    assert_eq!(run(&INSPECTOR, UDP, 21027, 4000, false, &w), Probe::NotForUs);
}
