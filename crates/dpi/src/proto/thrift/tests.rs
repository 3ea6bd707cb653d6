use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// Encoded by Apache Thrift 0.25.0 (PyPI thrift) in two network namespaces (scripts/netcap,
// scenario "thrift"; tshark 4.0.17 dissects all three as thrift). A strict binary call
// (thrift-binary-protocol.md "Message"): 80 01 00 01, name "getStatus", seqid 1, then the
// empty argument struct's stop field, in the buffered transport.
const GET_STATUS: &str = "80010001 00000009 676574537461747573 00000001 00";
// The same call in the framed transport: a 4-byte frame length (22) first.
const GET_STATUS_FRAMED: &str = "00000016 80010001 00000009 676574537461747573 00000001 00";
// A compact (thrift-compact-protocol.md) oneway "emitBatch" (the method of Jaeger's
// agent.thrift) to Jaeger's agent port, udp/6831: 82, type 4 << 5 | version 1 = 0x81, seqid
// varint 1, name length 9, the name, then field 1 (struct, 0x1c) holding an empty struct and
// the two stops.
const EMIT_BATCH: &str = "82 81 01 09 656d697442617463 68 1c 00 00";

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
    let c = hex(GET_STATUS);
    assert_eq!(c, call("getStatus"));
    assert_eq!(classify(TCP, 9090, 54874, &[(true, &c)]), Some("Thrift"));
    // Off the registered ports too.
    assert_eq!(classify(TCP, 11000, 54874, &[(true, &c)]), Some("Thrift"));
    assert_eq!(classify(TCP, 9090, 54878, &[(true, &hex(GET_STATUS_FRAMED))]), Some("Thrift"));
}

#[test]
fn compact_over_udp() {
    let m = hex(EMIT_BATCH);
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
