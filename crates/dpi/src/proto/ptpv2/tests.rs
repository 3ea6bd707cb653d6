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

/// Each message type's length (IEEE 1588-2008 §13): a Sync of 44 bytes is PTP, one that says
/// 45 is not; the second byte's minor version 0 or 1 only.
#[test]
fn lengths_by_message_type() {
    let mut sync = vec![0x00, 0x02, 0x00, 44];
    sync.resize(44, 0);
    assert_eq!(run(&INSPECTOR, UDP, 319, 319, false, &sync), Probe::Certain(&LABEL));
    sync[1] = 0x12;
    assert_eq!(run(&INSPECTOR, UDP, 319, 319, false, &sync), Probe::Certain(&LABEL));
    sync[1] = 0x22;
    assert_eq!(run(&INSPECTOR, UDP, 319, 319, false, &sync), Probe::NotForUs);
    sync[1] = 0x02;
    sync[3] = 45;
    sync.push(0);
    assert_eq!(run(&INSPECTOR, UDP, 319, 319, false, &sync), Probe::NotForUs);
    // An Announce of 64 bytes.
    let mut ann = vec![0x0b, 0x02, 0x00, 64];
    ann.resize(64, 0);
    assert_eq!(run(&INSPECTOR, UDP, 320, 320, false, &ann), Probe::Certain(&LABEL));
    ann[3] = 60;
    assert_eq!(run(&INSPECTOR, UDP, 320, 320, false, &ann), Probe::NotForUs);
}
