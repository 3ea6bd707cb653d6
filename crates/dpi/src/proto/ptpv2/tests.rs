use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// ptpv2.pcap frame 1: a signalling message (length 0x36, in 56 bytes).
const SIG: &str = "0c02003600000400000000000000000000000000002094fffe00000d0001000105ffffffffffffffffffffff00040006b0000000012c00";

#[test]
fn corpus_vector() {
    assert_eq!(classify(UDP, 320, 320, &[(true, &hex(SIG))]), Some("PTPv2"));
}

#[test]
fn port_and_version() {
    assert_eq!(run(&INSPECTOR, UDP, 5000, 4000, false, &hex(SIG)), Probe::NotForUs);
    let mut v = hex(SIG);
    v[1] = 1;
    assert_eq!(run(&INSPECTOR, UDP, 320, 320, false, &v), Probe::NotForUs);
}
