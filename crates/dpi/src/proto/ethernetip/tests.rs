use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// ethernetIP.pcap frame 4: SendUnitData (0x70), 0x30 bytes after the header (72 in all).
const UNIT: &str = "7000300000050213000000000000000000000000000000000000000000000200a10004009dc60080b1001c0033358a000000020006000e";

#[test]
fn corpus_vector() {
    let mut v = hex(UNIT);
    v.resize(72, 0);
    assert_eq!(classify(TCP, 44818, 52593, &[(false, &v)]), Some("EthernetIP"));
    v.push(0);
    assert_eq!(run(&INSPECTOR, TCP, 44818, 4000, true, &v), Probe::NotForUs);
}

#[test]
fn unknown_command() {
    let mut v = hex(UNIT);
    v.resize(72, 0);
    v[0] = 0x71;
    assert_eq!(run(&INSPECTOR, TCP, 44818, 4000, true, &v), Probe::NotForUs);
}
