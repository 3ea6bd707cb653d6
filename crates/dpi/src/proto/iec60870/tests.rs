use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// IEC104.pcap frames 3 (an S frame) and 7 (an I frame of 27 bytes).
const S_FRAME: &str = "6804010042b9";
const I_FRAME: &str = "68192c7e42b9240103001429cbb202cdcc2c3e0094dc028a230a0b";

#[test]
fn corpus_vectors() {
    assert_eq!(classify(TCP, 54768, 2404, &[(true, &hex(S_FRAME))]), Some("IEC60870"));
    assert_eq!(classify(TCP, 54768, 2404, &[(true, &hex(I_FRAME))]), Some("IEC60870"));
}

#[test]
fn lengths_checked() {
    let mut v = hex(I_FRAME);
    v.push(0x68);
    assert_eq!(run(&INSPECTOR, TCP, 2404, 4000, false, &v), Probe::NotForUs);
    assert_eq!(run(&INSPECTOR, TCP, 2404, 4000, false, &hex("6804ff0042b9")), Probe::NotForUs);
}
