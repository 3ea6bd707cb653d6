use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

/// A strict binary call (thrift-binary-protocol.md "Message"): 80 01 00 01, name, seqid 1,
/// then a stop field.
fn call(name: &str) -> Vec<u8> {
    let mut v = hex("80010001");
    v.extend_from_slice(&(name.len() as u32).to_be_bytes());
    v.extend_from_slice(name.as_bytes());
    v.extend_from_slice(&hex("00000001 00"));
    v
}

#[test]
fn binary_over_tcp() {
    // thrift.pcap.out flow 1: TCP to 11010, PLAIN TEXT "devicedriver".
    let c = call("getDeviceDriver");
    assert_eq!(classify(TCP, 11010, 53387, &[(true, &c)]), Some("Thrift"));
    // The same message in the framed transport.
    let mut framed = (c.len() as u32).to_be_bytes().to_vec();
    framed.extend_from_slice(&c);
    assert_eq!(classify(TCP, 9090, 53387, &[(true, &framed)]), Some("Thrift"));
}

#[test]
fn compact_over_udp() {
    // thrift.pcap.out flow 2: Jaeger's oneway emitBatch to UDP 6831 (compact protocol:
    // 82, type 4 << 5 | version 1 = 0x81, seqid varint 1, name length 9, name).
    let mut m = hex("82 81 01 09");
    m.extend_from_slice(b"emitBatch");
    m.extend_from_slice(&hex("1c 1c 18 00"));
    assert_eq!(classify(UDP, 6831, 49164, &[(true, &m)]), Some("Thrift"));
    // Version 2 in the low bits, or message type 0, is not Thrift.
    let mut v2 = m.clone();
    v2[1] = 0x82;
    assert_eq!(run(&INSPECTOR, UDP, 6831, 49164, false, &v2), Probe::NotForUs);
    let mut t0 = m.clone();
    t0[1] = 0x01;
    assert_eq!(run(&INSPECTOR, UDP, 6831, 49164, false, &t0), Probe::NotForUs);
}

#[test]
fn near_misses() {
    let c = call("ping");
    assert_eq!(run(&INSPECTOR, TCP, 9090, 4000, false, &c), Probe::Certain(&LABEL));
    let mut t5 = c.clone();
    t5[3] = 5; // no message type 5
    assert_eq!(run(&INSPECTOR, TCP, 9090, 4000, false, &t5), Probe::NotForUs);
    let mut long = c.clone();
    long[7] = 200; // name longer than the segment
    assert_eq!(run(&INSPECTOR, TCP, 9090, 4000, false, &long), Probe::NotForUs);
    let odd = call("a b\x01");
    assert_eq!(run(&INSPECTOR, TCP, 9090, 4000, false, &odd), Probe::NotForUs);
    // Strict binary is a TCP form only here; compact a UDP one.
    assert_eq!(run(&INSPECTOR, UDP, 9090, 4000, false, &c), Probe::NotForUs);
}
