use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

#[test]
fn corpus_vectors() {
    // smb_deletefile.pcap frame 1 (first 24 bytes, padded to the declared 0x178 + 4).
    let mut v2 = hex("00000178fe534d4240000100000000000500000100000000");
    v2.resize(0x178 + 4, 0);
    assert_eq!(classify(TCP, 445, 56848, &[(true, &v2)]), Some("NetBIOS"));
    assert_eq!(run(&INSPECTOR, TCP, 445, 56848, false, &v2), Probe::Certain(&SMB23));
    // smb_frags.pcap: an SMB1 negotiate (0x2f bytes).
    let mut v1 = hex("0000002fff534d4272000000001805d8000000000000000000000000");
    v1.resize(0x2f + 4, 0);
    assert_eq!(run(&INSPECTOR, TCP, 445, 54120, false, &v1), Probe::Certain(&SMB1));
}

#[test]
fn header_checked() {
    let mut v = hex("00000178fe534d4240000100000000000500000100000000");
    v.resize(0x178 + 5, 0);
    assert_eq!(run(&INSPECTOR, TCP, 445, 4000, false, &v), Probe::NotForUs);
    let mut w = hex("00000178fe534d4240000100000000000500000100000000");
    w[5] = b'X';
    assert_eq!(run(&INSPECTOR, TCP, 445, 4000, false, &w), Probe::NotForUs);
}
