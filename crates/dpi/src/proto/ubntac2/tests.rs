use super::*;
use crate::proto::testkit::{classify, probe as run};

/// The start of ubntac2.pcap frame 1 (version 2, command 6): its first two fields (a MAC and
/// IP of 10 bytes, type 2) and a third (type 0x0b, "ubnt"), the length rebuilt for these.
fn announce() -> Vec<u8> {
    let mut v = vec![0x02, 0x06, 0x00, 0];
    v.extend_from_slice(&[0x02, 0x00, 0x0a, 0x80, 0x2a, 0xa8, 0x8d, 0x69, 0x2b, 0xc0, 0xa8, 0x02, 0x15]);
    v.extend_from_slice(&[0x0b, 0x00, 0x04, b'u', b'b', b'n', b't']);
    v[3] = (v.len() - 4) as u8;
    v
}

#[test]
fn corpus_vector() {
    assert_eq!(classify(UDP, 10001, 34085, &[(true, &announce())]), Some("UBNTAC2"));
}

#[test]
fn fields_must_fit() {
    let mut v = announce();
    v[6] = 0x0b; // the first field now overruns
    assert_eq!(run(&INSPECTOR, UDP, 10001, 4000, false, &v), Probe::NotForUs);
}
