use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// Built from the message structure Wireshark's c1222 dissector decodes (no copy of ANSI C12.22
// was used): an ACSE APDU 0x60 with the called AP title 1.3.6.1.4.1.33507.1 (0xA2, OID), the
// calling AP title 1.3.6.1.4.1.33507.2 (0xA6), the calling AP invocation id 7 (0xA8) and user
// information (0xBE) holding EXTERNAL / octet-aligned EPSEM 80 01 20 00: control 0x80, one
// service of length 1, Identify (0x20), end. tshark 4.0.17 on udp 40000 -> 1153 and on tcp:
// eth:ethertype:ip:udp:c1222 (and ip:tcp:c1222), "C12.22 Command: Identify (0x20)", EPSEM
// flags cleartext, no expert info.
const IDENT: &str = "6029a20b06092b0601040182856301a60b06092b0601040182856302a803020107be082806810480012000";

#[test]
fn identify_request() {
    let v = hex(IDENT);
    assert_eq!(run(&INSPECTOR, UDP, 1153, 40000, false, &v), Probe::Certain(&LABEL));
    assert_eq!(run(&INSPECTOR, TCP, 1153, 40000, false, &v), Probe::Certain(&LABEL));
    // Any port: the structure decides.
    assert_eq!(run(&INSPECTOR, UDP, 5000, 40000, false, &v), Probe::Certain(&LABEL));
    assert_eq!(classify(UDP, 1153, 40000, &[(true, &v)]), Some("ANSI_C1222"));
    assert_eq!(classify(TCP, 1153, 40000, &[(true, &v)]), Some("ANSI_C1222"));
}

#[test]
fn near_misses() {
    let v = hex(IDENT);
    let at = |i: usize, b: u8| {
        let mut w = v.clone();
        w[i] = b;
        run(&INSPECTOR, UDP, 1153, 40000, false, &w)
    };
    assert_eq!(at(0, 0x61), Probe::NotForUs); // not [APPLICATION 0]
    assert_eq!(at(1, 0x2a), Probe::NotForUs); // APDU length past the datagram
    assert_eq!(at(2, 0xa7), Probe::NotForUs); // A7 before A6: out of order
    assert_eq!(at(2, 0x30), Probe::NotForUs); // an unknown element
    assert_eq!(at(4, 0x04), Probe::NotForUs); // an AP title that is no OID
    assert_eq!(at(35, 0x30), Probe::NotForUs); // user information without EXTERNAL
    assert_eq!(at(37, 0x82), Probe::NotForUs); // not the octet-aligned encoding
    assert_eq!(at(39, 0x00), Probe::NotForUs); // EPSEM control without its reserved bit
    let mut short = v.clone();
    short.pop();
    assert_eq!(run(&INSPECTOR, UDP, 1153, 40000, false, &short), Probe::NotForUs);
    let mut long = v.clone();
    long.push(0);
    assert_eq!(run(&INSPECTOR, UDP, 1153, 40000, false, &long), Probe::NotForUs);
}
