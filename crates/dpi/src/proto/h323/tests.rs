use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

#[test]
fn corpus_vector() {
    // h323.pcap frame 6: a Q.931 SETUP (0x05) in a 160-byte TPKT; the first 24 bytes kept
    // and zero-padded to the declared length.
    let mut v = hex("030000a0080277f40504038090a528086d2e6a656d656300");
    v.resize(160, 0);
    assert_eq!(classify(TCP, 1720, 32803, &[(true, &v)]), Some("H323"));
    v.push(0);
    assert_eq!(run(&INSPECTOR, TCP, 1720, 4000, false, &v), Probe::NotForUs);
}

#[test]
fn ras_over_udp() {
    // h323.pcap, flow 2034 -> 1719: a RAS request (38 bytes).
    let r = hex("02200000060008914a0004001102007c07f22200ae01003d0001030085c89a51208003014000");
    assert_eq!(classify(UDP, 1719, 2034, &[(true, &r)]), Some("H323"));
    let mut bad = r.clone();
    bad[7] = 0x92;
    assert_eq!(run(&INSPECTOR, UDP, 1719, 2034, false, &bad), Probe::NotForUs);
}

#[test]
fn rdp_is_not_h323() {
    // rdp.pcap frame 4: TPKT with X.224.
    let v = hex("030000130ee00000000000010008000b000000");
    assert_eq!(run(&INSPECTOR, TCP, 1720, 4000, false, &v), Probe::NotForUs);
}
