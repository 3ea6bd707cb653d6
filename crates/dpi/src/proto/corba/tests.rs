use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

/// A GIOP 1.2 Request header (CORBA 3.0 section 15.4.1), little-endian (flags 1), with a
/// message body of `n` bytes.
fn request(n: usize) -> Vec<u8> {
    let mut v = b"GIOP\x01\x02\x01\x00".to_vec();
    v.extend_from_slice(&(n as u32).to_le_bytes());
    v.extend(std::iter::repeat_n(0x41, n));
    v
}

// Captured from omniORB 4.2.5 (Debian omniorb: nameclt against omniorb-nameserver's
// omniNames) in two network namespaces (scripts/netcap, scenario "corba"; tshark 4.0.17
// dissects both as giop): GIOP 1.0 little-endian (flags 1) Requests (CORBA 3.0 section
// 15.4.2) to object key "NameService": "_is_a" with the NamingContext repository id, then
// "list"; and the first Reply (type 1).
const IS_A: &str = "47494f5001000100580000000000000002000000010000000b0000004e616d6553657276696365
                    00060000005f69735f61000000000000002800000049444c3a6f6d672e6f72672f436f734e616d
                    696e672f4e616d696e67436f6e746578743a312e3000";
const LIST: &str = "47494f5001000100300000000000000004000000010000000b0000004e616d6553657276696365
                    00050000006c697374000000000000000000000000";
const REPLY: &str = "47494f50010001010d00000000000000020000000000000001";

#[test]
fn giop_over_tcp_and_udp() {
    assert_eq!(classify(TCP, 2809, 50100, &[(true, &hex(IS_A))]), Some("Corba"));
    assert_eq!(classify(TCP, 50100, 2809, &[(true, &hex(LIST))]), Some("Corba"));
    assert_eq!(run(&INSPECTOR, TCP, 2809, 50100, true, &hex(REPLY)), Probe::Certain(&LABEL));
    // The header decides between any ports, not only 2809 (corbaloc), over UDP as well
    // (a hand-built 1.2 Request, section 15.4.1).
    assert_eq!(classify(TCP, 56899, 42717, &[(true, &request(100))]), Some("Corba"));
    assert_eq!(classify(UDP, 15984, 34477, &[(true, &request(248))]), Some("Corba"));
    // Big-endian 1.0: byte order 0, size read big-endian.
    let mut be = b"GIOP\x01\x00\x00\x03".to_vec();
    be.extend_from_slice(&hex("00000004 00000001"));
    assert_eq!(run(&INSPECTOR, UDP, 15984, 34477, false, &be), Probe::Certain(&LABEL));
}

#[test]
fn miop_over_udp() {
    // MIOP header: magic, version 1.0, flags (big-endian, last packet), packet length, packet
    // number 0 of 1, a 4-byte id, then the GIOP message.
    let mut m = b"MIOP\x10\x02".to_vec();
    let giop = request(16);
    let total = 24 + giop.len();
    m.extend_from_slice(&(total as u16).to_be_bytes());
    m.extend_from_slice(&hex("00000000 00000001 00000004 0a5f1c2e"));
    m.extend_from_slice(&giop);
    assert_eq!(classify(UDP, 15984, 34477, &[(true, &m)]), Some("Corba"));
    let mut n = m.clone();
    n[15] = 0; // zero packets in the group
    assert_eq!(run(&INSPECTOR, UDP, 15984, 34477, false, &n), Probe::NotForUs);
}

#[test]
fn near_misses() {
    let ok = request(20);
    let mut v2 = ok.clone();
    v2[4] = 2; // GIOP 2.x does not exist
    let mut fl = ok.clone();
    fl[6] = 0x04; // undefined flag bit
    let mut ty = ok.clone();
    ty[7] = 8; // no message type 8
    let mut frag10 = ok.clone();
    (frag10[5], frag10[6], frag10[7]) = (0, 1, 7); // Fragment needs 1.1
    for (i, v) in [v2, fl, ty, frag10].iter().enumerate() {
        assert_eq!(run(&INSPECTOR, TCP, 4000, 5000, false, v), Probe::NotForUs, "case {i}");
    }
    // In a datagram the message cannot be longer than what is left.
    let mut long = ok.clone();
    long[8] = 100;
    assert_eq!(run(&INSPECTOR, UDP, 4000, 5000, false, &long), Probe::NotForUs);
    assert_eq!(run(&INSPECTOR, TCP, 4000, 5000, false, &long), Probe::Certain(&LABEL));
}
