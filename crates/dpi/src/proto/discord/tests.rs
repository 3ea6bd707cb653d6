use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

#[test]
fn corpus_vector() {
    // riotgames.pcap frame 16: the 8-byte probe.
    assert_eq!(classify(UDP, 50004, 48526, &[(true, &hex("1337cafe0a000000"))]), Some("Discord"));
}

#[test]
fn sizes_checked() {
    assert_eq!(run(&INSPECTOR, UDP, 50004, 4000, false, &hex("1337cafe0a00000000")), Probe::NotForUs);
    let mut v = vec![0u8, 1, 0, 70];
    v.resize(73, 0);
    assert_eq!(run(&INSPECTOR, UDP, 50004, 4000, false, &v), Probe::NotForUs);
    v.push(0);
    assert_eq!(run(&INSPECTOR, UDP, 50004, 4000, false, &v), Probe::Certain(&LABEL));
}
