use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// Built from the specifications, byte by byte: an FDT Instance packet (RFC 6726 §3.4.1) with the
// LCT header of RFC 5651 §5.1 (V=1, C=0, S=1, O=1, HDR_LEN 9, codepoint 0, CCI 0, TSI 0x1234,
// TOI 0), EXT_FTI of Compact No-Code FEC (RFC 5445 §3.4.1: transfer length 236, symbol length
// 1400, source block length 64), EXT_FDT (HET 192, FLUTE version 2, FDT Instance ID 1), the
// 32-bit FEC Payload ID (SBN 0, ESI 0) and the FDT Instance XML of RFC 6726 §3.4.2 listing one
// file. tshark 4.0.17 (`-d udp.port==4001,alc`): alc:rmt-lct:rmt-fec:xml, TOI 0, EXT_FTI and
// "EXT_FDT, FDT Instance Header (192)", FLUTE version 2, FDT Instance ID 1, the XML parsed.
const FDT: &str = "10a0090000000000000012340000000040040000000000ec0000057800000040c0200001000000003c3f786d6c2076\
    657273696f6e3d22312e302220656e636f64696e673d225554462d38223f3e0a3c4644542d496e7374616e63652078\
    6d6c6e733d2275726e3a696574663a706172616d733a786d6c3a6e733a6664742220457870697265733d2233393333\
    373938343030223e0a20203c46696c6520436f6e74656e742d4c6f636174696f6e3d22687474703a2f2f6578616d70\
    6c652e636f6d2f612e7478742220544f493d22312220436f6e74656e742d4c656e6774683d22313032342220436f6e\
    74656e742d547970653d22746578742f706c61696e222f3e0a3c2f4644542d496e7374616e63653e0a";

// The same session's file data, built the same way: TOI 1, no extensions, HDR_LEN 4, 16 bytes of
// the file after the payload id. tshark: alc:rmt-lct:rmt-fec, TOI 1.
const DATA: &str = "10a004000000000000001234000000010000000066696c65206461746120313233343536";

#[test]
fn fdt_instance() {
    let v = hex(FDT);
    assert_eq!(run(&INSPECTOR, UDP, 4001, 40000, false, &v), Probe::Certain(&LABEL));
    assert_eq!(classify(UDP, 4001, 40000, &[(true, &v)]), Some("FLUTE"));
    // File data first, then the FDT: the flow waits, then is named.
    let d = hex(DATA);
    assert_eq!(run(&INSPECTOR, UDP, 4001, 40000, false, &d), Probe::Unsure);
    assert_eq!(classify(UDP, 4001, 40000, &[(true, &d), (true, &v)]), Some("FLUTE"));
}

#[test]
fn near_misses() {
    let v = hex(FDT);
    let at = |i: usize, b: u8| {
        let mut w = v.clone();
        w[i] = b;
        run(&INSPECTOR, UDP, 4001, 40000, false, &w)
    };
    assert_eq!(at(0, 0x20), Probe::NotForUs); // LCT version 2
    assert_eq!(at(1, 0xa4), Probe::NotForUs); // a reserved bit set
    assert_eq!(at(1, 0x20), Probe::NotForUs); // no TSI (ALC requires one)
    assert_eq!(at(2, 0x0a), Probe::NotForUs); // header length past the extensions
    assert_eq!(at(2, 0xff), Probe::NotForUs); // header length past the datagram
    assert_eq!(at(17, 0x00), Probe::NotForUs); // EXT_FTI's HEL of 0
    assert_eq!(at(3, 0x80), Probe::NotForUs); // a FEC scheme with a longer payload id
    assert_eq!(at(33, 0x00), Probe::NotForUs); // EXT_FDT version 0
    assert_eq!(at(41, b'X'), Probe::NotForUs); // not an XML declaration
    assert_eq!(at(80, b'X'), Probe::NotForUs); // another root element
    assert_eq!(at(32, 0xc1), Probe::Unsure); // EXT_CENC instead of EXT_FDT: not named here
    assert_eq!(at(15, 0x01), Probe::Unsure); // TOI 1: an object, not the FDT
    let mut short = v.clone();
    short.truncate(30);
    assert_eq!(run(&INSPECTOR, UDP, 4001, 40000, false, &short), Probe::NotForUs);
}
