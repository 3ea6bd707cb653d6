use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

#[test]
fn corpus_vector() {
    // dcerpc.pcap frame 3 (PROFINET IO over DCE/RPC, 170 bytes, little-endian, fragment
    // length 0x5a): the first 40 bytes, zero-padded, and the length restored at byte 74.
    let mut v = hex("04020a00100000000000a0de976cd111827100010101014d0100a0de976cd111827100a02442df7d");
    v.resize(170, 0);
    v[74] = 0x5a;
    assert_eq!(classify(UDP, 49155, 49161, &[(false, &v)]), Some("DCERPC"));
    v.push(0);
    assert_eq!(run(&INSPECTOR, UDP, 49155, 49161, true, &v), Probe::NotForUs);
}

#[test]
fn tcp_bind() {
    // A connection-oriented bind (type 11 is out of the CL range but valid over TCP): 5.0,
    // type 11, flags 3, little-endian, fragment length 72.
    let mut b = hex("05000b031000000048000000");
    b.resize(72, 0);
    assert_eq!(run(&INSPECTOR, TCP, 135, 4000, false, &b), Probe::Certain(&LABEL));
    b[0] = 4;
    assert_eq!(run(&INSPECTOR, TCP, 135, 4000, false, &b), Probe::NotForUs);
}
