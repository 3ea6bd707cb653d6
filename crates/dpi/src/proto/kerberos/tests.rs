use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// kerberos-error.pcap frame 2: KRB-ERROR (application 30), 102 bytes; first 24 bytes shown
// to the TCP path (a prefix is enough there) and the whole length rebuilt for UDP.
const ERR_HEAD: &str = "7e643062a003020105a10302011ea411180f32303232303232";
// kerberos-login.pcap frame 31: TGS-REQ over TCP (record length 0x60f), first 24 bytes.
const TGS_TCP: &str = "0000060f6c82060b30820607a103020105a20302010ca38205";

#[test]
fn corpus_vectors() {
    let mut v = hex(ERR_HEAD);
    v.resize(102, 0);
    assert_eq!(classify(UDP, 88, 34473, &[(false, &v)]), Some("Kerberos"));
    assert_eq!(classify(TCP, 88, 44256, &[(true, &hex(TGS_TCP))]), Some("Kerberos"));
}

#[test]
fn version_and_length_checked() {
    let mut v = hex(ERR_HEAD);
    v.resize(101, 0);
    assert_eq!(run(&INSPECTOR, UDP, 88, 4000, true, &v), Probe::NotForUs);
    let mut w = hex(ERR_HEAD);
    w.resize(102, 0);
    w[8] = 4; // pvno 4
    assert_eq!(run(&INSPECTOR, UDP, 88, 4000, true, &w), Probe::NotForUs);
}
