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

// Built from IEC 61158-6-10 and DCE 1.1 RPC chapter 12 (no PROFINET stack installs here): a
// connectionless request, little-endian, object DEA00000-6C97-11D1-8271-000100010176, interface
// PNIO-Device DEA00001-6C97-11D1-8271-00A02442DF7D version 1, opnum 5 (Read Implicit), whose
// body is the NDR arguments and an IODReadReqHeader block for index 0xAFF0 (I&M0). tshark
// 4.0.17 dissects it, on UDP port 34964, as "PROFINET IO (Device), Read Implicit" with no
// expert note.
const PNIO_READ: &str = "04002000100000000000a0de976cd11182710001000101760100a0de976cd111827100a02442df7de0c1a9b711112b4a9c3d0123456789ab0000000001000000000000000500ffffffff54000000000000100000400000000010000000000000400000000009003c01000001c0ffee00123456789abcdef01234567800000000000000010000aff000001000000000000000000000000000000000000000000000000000";

#[test]
fn profinet_io() {
    let v = hex(PNIO_READ);
    assert_eq!(run(&INSPECTOR, UDP, 34964, 49155, false, &v), Probe::Certain(&PROFINET_IO));
    assert_eq!(classify(UDP, 34964, 49155, &[(true, &v)]), Some("DCERPC"));
    // Another interface (n = 9) stays plain DCE/RPC.
    let mut w = v.clone();
    w[24] = 9;
    assert_eq!(run(&INSPECTOR, UDP, 34964, 49155, false, &w), Probe::Certain(&LABEL));
    // The same UUID written big-endian under a big-endian data representation.
    let mut b = v.clone();
    b[4] = 0;
    b[24..32].copy_from_slice(&[0xde, 0xa0, 0x00, 0x01, 0x6c, 0x97, 0x11, 0xd1]);
    b[74..76].copy_from_slice(&[0x00, 0x54]);
    assert_eq!(run(&INSPECTOR, UDP, 34964, 49155, false, &b), Probe::Certain(&PROFINET_IO));
    // A changed node part of the UUID.
    let mut w = v;
    w[39] = 0x7e;
    assert_eq!(run(&INSPECTOR, UDP, 34964, 49155, false, &w), Probe::Certain(&LABEL));
}
