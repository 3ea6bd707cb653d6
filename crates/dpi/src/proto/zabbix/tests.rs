use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// zabbix.pcap frame 14 (first 24 of 91 bytes): compressed (flags 3), data length 0x4e.
const REQ: &str = "5a425844034e00000045000000789caa562a4a2d2c4d2d2e51";

#[test]
fn corpus_vector() {
    assert_eq!(classify(TCP, 10051, 36699, &[(true, &hex(REQ))]), Some("Zabbix"));
}

#[test]
fn flags_and_length() {
    let mut v = hex(REQ);
    v[4] = 2;
    assert_eq!(run(&INSPECTOR, TCP, 10051, 4000, false, &v), Probe::NotForUs);
    let mut w = hex(REQ);
    w[5] = 1; // 1 byte of data cannot hold 24 bytes
    assert_eq!(run(&INSPECTOR, TCP, 10051, 4000, false, &w), Probe::NotForUs);
}
