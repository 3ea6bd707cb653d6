use super::*;
use crate::proto::testkit::{classify, hex};

/// Datagrams of nDPI's shape (its dissector src/lib/protocols/halflife2_and_mods.c): 48 bytes, `ff ff ff ff` first, "000\0" last.
fn dgram(fill: u8) -> Vec<u8> {
    let mut v = hex("ffffffff");
    v.resize(44, fill);
    v.extend_from_slice(b"000\0");
    v
}

#[test]
fn request_then_answer() {
    let (q, a) = (dgram(b'q'), dgram(b'a'));
    assert_eq!(classify(UDP, 27015, 40000, &[(true, &q), (false, &a)]), Some("HalfLife2"));
    // Off 27015 as well (nDPI's rule has no port).
    assert_eq!(classify(UDP, 40002, 40001, &[(true, &q), (false, &a)]), Some("HalfLife2"));
}

#[test]
fn one_side_or_a_wrong_shape_is_not_enough() {
    let (q, a) = (dgram(b'q'), dgram(b'a'));
    assert_ne!(classify(UDP, 40002, 40001, &[(true, &q)]), Some("HalfLife2"));
    assert_ne!(classify(UDP, 40002, 40001, &[(true, &q), (true, &q), (false, &a)]), Some("HalfLife2"));
    let mut bad = a.clone();
    bad[47] = b'0';
    assert_ne!(classify(UDP, 40002, 40001, &[(true, &q), (false, &bad)]), Some("HalfLife2"));
    let mut bad = a;
    bad[0] = 0xfe;
    assert_ne!(classify(UDP, 40002, 40001, &[(true, &q), (false, &bad)]), Some("HalfLife2"));
    // 19 bytes: too short.
    let short = [&[0xff; 4][..], &[0u8; 11][..], b"000\0"].concat();
    assert_ne!(classify(UDP, 40002, 40001, &[(true, &short), (false, &short)]), Some("HalfLife2"));
}
