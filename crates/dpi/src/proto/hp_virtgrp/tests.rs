use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

#[test]
fn corpus_vector() {
    // hpvirtgrp.pcap frame 64: type 0x16, length 0x84 (132, the whole segment), cut to its
    // first 40 bytes and padded back to 132 with zeros.
    let mut v = hex("160084005782a0b41891956e7054a54e29610143b827619cff136fe1b49502148438a50af47d69f5");
    v.resize(132, 0);
    assert_eq!(classify(TCP, 5223, 40152, &[(true, &v)]), Some("HP_VIRTGRP"));
    v.push(0);
    assert_eq!(run(&INSPECTOR, TCP, 5223, 4000, false, &v), Probe::NotForUs);
}

#[test]
fn tls_is_not_it() {
    let tls = hex("160301008c010000880303");
    assert_eq!(run(&INSPECTOR, TCP, 5223, 4000, false, &tls), Probe::NotForUs);
}
