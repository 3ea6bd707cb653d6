use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

/// A MELSOFT message of `len` bytes laid out as melsec.pcapng.out and nDPI's rule describe:
/// the kind byte, the constant 00 00 11 11 at offset 3, the length of what follows offset 21
/// (little-endian) at offset 19, and the CPU model text the capture's PLAIN TEXT shows.
fn message(kind: u8, len: usize) -> Vec<u8> {
    let mut v = vec![kind, 0, 0, 0, 0, 0x11, 0x11];
    v.resize(19, 0);
    v.extend_from_slice(&((len - 21) as u16).to_le_bytes());
    v.extend_from_slice(b"FX5U-32MT/ES");
    v.resize(len, 0x20);
    v
}

#[test]
fn layout_by_hand() {
    // The 53-byte discovery request of the capture (95-byte frame less 42 bytes of headers):
    // length 32 = 0x20 at offset 19.
    let v = message(0x57, 53);
    assert_eq!(&v[..7], &hex("57000000001111")[..]);
    assert_eq!(&v[19..21], &hex("2000")[..]);
}

#[test]
fn whole_registry_names_melsec() {
    // UDP discovery (77-byte answer, 53-byte request) and a TCP session whose first exchange is
    // shorter than 40 bytes.
    assert_eq!(classify(UDP, 49156, 5560, &[(true, &message(0xd7, 77))]), Some("MELSEC"));
    assert_eq!(classify(UDP, 5560, 49156, &[(true, &message(0x57, 53))]), Some("MELSEC"));
    let short = hex("57000000001111000000");
    let req = message(0x57, 71);
    let ans = message(0xd7, 99);
    let pkts: &[(bool, &[u8])] = &[(true, &short), (false, &short), (true, &req), (false, &ans)];
    assert_eq!(classify(TCP, 5007, 40260, pkts), Some("MELSEC"));
    // The layout alone decides off MELSEC's ports.
    assert_eq!(classify(TCP, 6000, 40260, &[(true, &req)]), Some("MELSEC"));
}

#[test]
fn near_misses() {
    let ok = message(0x57, 71);
    assert_eq!(run(&INSPECTOR, TCP, 6000, 4000, false, &ok), Probe::Certain(&LABEL));
    let mut v = ok.clone();
    v[0] = 0x50; // an MC protocol 3E subheader, not MELSOFT
    assert_eq!(run(&INSPECTOR, TCP, 6000, 4000, false, &v), Probe::NotForUs);
    let mut v = ok.clone();
    v[6] = 0x12; // the constant
    assert_eq!(run(&INSPECTOR, TCP, 6000, 4000, false, &v), Probe::NotForUs);
    let mut v = ok.clone();
    v[19] += 1; // length one more than the message
    assert_eq!(run(&INSPECTOR, TCP, 6000, 4000, false, &v), Probe::NotForUs);
    // 40 bytes are too few even with a matching length.
    assert_eq!(run(&INSPECTOR, TCP, 6000, 4000, false, &message(0x57, 40)), Probe::NotForUs);
    // Short packets wait on MELSEC's ports only.
    let short = hex("57000000001111000000");
    assert_eq!(run(&INSPECTOR, TCP, 5007, 4000, false, &short), Probe::Unsure);
    assert_eq!(run(&INSPECTOR, TCP, 6000, 4000, false, &short), Probe::NotForUs);
}
