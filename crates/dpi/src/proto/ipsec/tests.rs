use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

#[test]
fn corpus_vectors() {
    // ah.pcapng frame 1: IKEv2 IKE_SA_INIT (exchange 34), length 0x166 (358, the datagram);
    // the first 40 bytes, zero-padded back to the declared length.
    let mut v = hex("1c1869f6d29ba0cc0000000000000000212022080000000000000166220000300000002c01010004");
    v.resize(358, 0);
    assert_eq!(classify(UDP, 500, 500, &[(true, &v)]), Some("IPSec"));
    // ipsec_isakmp_esp.pcap frame 489: over 4500 after the non-ESP marker, length 0x6c.
    let mut w = hex("00000000cd7bae2d4bfda73e1c4146bf012011b52e202308000000020000006c30000050");
    w.resize(112, 0);
    assert_eq!(classify(UDP, 4500, 14500, &[(true, &w)]), Some("IPSec"));
}

#[test]
fn length_and_version_checked() {
    let mut v = hex("1c1869f6d29ba0cc0000000000000000212022080000000000000166220000300000002c01010004");
    v.resize(357, 0);
    assert_eq!(run(&INSPECTOR, UDP, 500, 500, false, &v), Probe::NotForUs);
    v.resize(358, 0);
    v[17] = 0x30;
    assert_eq!(run(&INSPECTOR, UDP, 500, 500, false, &v), Probe::NotForUs);
}
