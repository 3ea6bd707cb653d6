use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

#[test]
fn corpus_vector() {
    // tuya_lp.pcap frame 5: 188 bytes, length 0xac; the first 24 bytes kept, the middle
    // zeroed, and the capture's closing 0000aa55 restored.
    let mut v = hex("000055aa0000000000000013000000ac0000000097b93fee");
    v.resize(184, 0);
    v.extend_from_slice(&[0, 0, 0xaa, 0x55]);
    assert_eq!(classify(UDP, 6667, 49154, &[(true, &v)]), Some("TuyaLP"));
    v.pop();
    assert_eq!(run(&INSPECTOR, UDP, 6667, 4000, false, &v), Probe::NotForUs);
}

#[test]
fn no_magic() {
    assert_eq!(run(&INSPECTOR, UDP, 6667, 4000, false, &[0; 32]), Probe::NotForUs);
}
