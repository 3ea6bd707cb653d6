use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

#[test]
fn corpus_vectors() {
    // roughtime.pcap frame 1: two tags (NONC at 0, PAD\xff at 0x40), 1024 bytes; the first
    // 24 bytes kept and zero-padded to the capture's size.
    let mut q = hex("02000000400000004e4f4e43504144ff459cab6f4834cda9");
    q.resize(1024, 0);
    assert_eq!(classify(UDP, 2002, 36225, &[(true, &q)]), Some("Roughtime"));
    // The answer: five tags SIG, PATH, SREP, CERT, INDX (offsets 0x40, 0x40, 0xa4, 0x13c).
    let mut a = hex("050000004000000040000000a40000003c01000053494700504154485352455043455254494e4458");
    a.resize(400, 0);
    assert_eq!(classify(UDP, 2002, 36225, &[(false, &a)]), Some("Roughtime"));
}

#[test]
fn tag_order_and_sizes() {
    let mut q = hex("02000000400000004e4f4e43504144ff");
    assert_eq!(run(&INSPECTOR, UDP, 2002, 4000, false, &q), Probe::NotForUs);
    q.resize(1024, 0);
    q.swap(8, 12); // tags out of order
    assert_eq!(run(&INSPECTOR, UDP, 2002, 4000, false, &q), Probe::NotForUs);
}
