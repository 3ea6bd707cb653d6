use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// uftp/uftpd 4.10.2 (Debian uftp 4.10.2-1.1+b2) sending a file between two network namespaces
// over multicast 230.4.4.1:1044, captured with tcpdump (h2-uftp.pcap); tshark 4.0.17 dissects
// every packet as eth:ip:udp:uftp:uftp4.
// Frame 1: ANNOUNCE (function 1) from the server to the public multicast address.
const ANNOUNCE: &str = "40010000c0000201d3965678009d000001060014000005146b06382a000134dfe6040401e605054f";
// Frame 2: REGISTER (function 2) from the client back to the server's port.
const REGISTER: &str = "40020000c0000202d396567800000000020b00006b06382a000136500000000000000000000000000000000000000000000000000000000000000000";
// Frame 25: FILESEG (function 9) carrying the file's bytes.
const FILESEG: &str = "40090016c0000201d3965678006b1800090200010000000068656c6c6f207566747020576564204e6f762032352030313a32313a34342055544320323032360a";

#[test]
fn uftp_session() {
    assert_eq!(classify(UDP, 1044, 35118, &[(true, &hex(ANNOUNCE))]), Some("UFTP"));
    assert_eq!(classify(UDP, 35118, 1044, &[(true, &hex(REGISTER))]), Some("UFTP"));
    assert_eq!(run(&INSPECTOR, UDP, 1044, 35118, false, &hex(FILESEG)), Probe::Certain(&LABEL));
}

#[test]
fn near_misses() {
    let mut v = hex(ANNOUNCE);
    v[0] = 0x41; // unknown version
    assert_eq!(run(&INSPECTOR, UDP, 1044, 35118, false, &v), Probe::NotForUs);
    let mut v = hex(ANNOUNCE);
    v[16] = 2; // message function differs from the header's
    assert_eq!(run(&INSPECTOR, UDP, 1044, 35118, false, &v), Probe::NotForUs);
    let mut v = hex(ANNOUNCE);
    v[15] = 1; // reserved byte
    assert_eq!(run(&INSPECTOR, UDP, 1044, 35118, false, &v), Probe::NotForUs);
    let mut v = hex(ANNOUNCE);
    v[17] = 60; // header longer than the datagram
    assert_eq!(run(&INSPECTOR, UDP, 1044, 35118, false, &v), Probe::NotForUs);
    let mut v = hex(ANNOUNCE);
    v[1] = 22; // no such function
    v[16] = 22;
    assert_eq!(run(&INSPECTOR, UDP, 1044, 35118, false, &v), Probe::NotForUs);
}
