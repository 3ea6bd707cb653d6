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

#[test]
fn giop_over_tcp_and_udp() {
    // corba.pcap.out flow 1: TCP between random ports; flow 2: UDP between random ports.
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
