use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

/// protobuf.pcap, flow 127.0.0.1:52392 -> 12345, the client's first segment (68 bytes): fields
/// 2 (LEN "bla"), 4 (LEN 9) three times, 5 (I32), 6 (I64), 7 (VARINT), 8 (LEN "AAAABBBB"),
/// 11 (VARINT), then the tag of field 1 (LEN) whose length is in the next segment.
const FIRST: &str = "1203626c612209080112057465737431220908021205746573743222090803120574657374332df323a74431e71da7e888e4944038a4034208414141414242424258030a";

/// protobuf.pcap, flow 127.0.0.1:51680 -> 12345: each of the client's segments (18 bytes) is
/// field 7 (VARINT, 5 bytes), field 10 (VARINT, 10 bytes) and the tag of field 1 (LEN).
const SHORT: &str = "38ffffffff0750ffffffffffffffffff010a";

#[test]
fn walks_the_corpus_messages() {
    let first = hex(FIRST);
    assert_eq!(first.len(), 68);
    assert_eq!(
        walk(&first),
        Some(Walk {
            fields: 9,
            len_fields: 5,
            overrun: false
        })
    );
    assert_eq!(
        walk(&hex(SHORT)),
        Some(Walk {
            fields: 2,
            len_fields: 0,
            overrun: false
        })
    );
}

#[test]
fn one_long_message_or_four_short_ones() {
    // nDPI names both flows Protobuf: the first at its first data segment, the second at its
    // fourth (flows.csv: 4 and 10 packets with the handshake and the server's ACKs).
    let first = hex(FIRST);
    assert_eq!(classify(TCP, 12345, 52392, &[(true, &first)]), Some("Protobuf"));
    let short = hex(SHORT);
    let three: Vec<(bool, &[u8])> = vec![(true, &short[..]); 3];
    assert_eq!(classify(TCP, 12345, 51680, &three), None);
    let four: Vec<(bool, &[u8])> = vec![(true, &short[..]); 4];
    assert_eq!(classify(TCP, 12345, 51680, &four), Some("Protobuf"));
}

#[test]
fn malformed_fields_rule_it_out() {
    for (d, why) in [
        ("0001", "field number 0"),
        ("0b0c", "start group (deprecated)"),
        ("0e00", "wire type 6"),
        ("0d0102", "I32 cut short"),
        ("1200", "empty LEN"),
        ("08ffffffffffffffffffff01", "varint of 11 bytes"),
        ("160301020001", "a TLS record (field 2, wire type 6)"),
        ("474554202f20485454502f312e310d0a", "GET / HTTP/1.1"),
        ("000000000000000000000000000000000000", "zeros (the worst-case trace)"),
    ] {
        let d = hex(d);
        assert_eq!(walk(&d), None, "{why}");
        assert_eq!(run(&INSPECTOR, TCP, 12345, 40000, false, &d), Probe::NotForUs, "{why}");
    }
    // A LEN value running past the packet ends the test unless it was already proved.
    assert_eq!(
        run(&INSPECTOR, TCP, 12345, 40000, false, &hex("0801120a6162")),
        Probe::NotForUs
    );
    // Two short fields on a first packet: more packets wanted.
    assert_eq!(run(&INSPECTOR, TCP, 12345, 40000, false, &hex("08011001")), Probe::Unsure);
}

#[test]
fn rtp_audio_over_udp_stays_rtp() {
    // false_positives.pcapng, UDP 10.126.70.67:23784 -> 10.236.7.225:50160 (nDPI: RTP), the
    // first 40 of the 172 payload bytes, then A-law silence (0x55 / 0xd5) as in the capture.
    // It walks as protobuf (ten fields, one LEN), so protobuf is not tried over UDP.
    let mut d = hex("80080cdd1bc8cb2e34127856d555555555d5d555d5d5555555555555555555d5d5d5d5d55555d5");
    while d.len() < 172 {
        d.push(if d.len().is_multiple_of(3) { 0xd5 } else { 0x55 });
    }
    assert!(walk(&d).is_some_and(|w| w.fields >= PROOF_FIELDS && w.len_fields > 0));
    let pkts: Vec<(bool, &[u8])> = vec![(true, &d[..]); 3];
    assert_eq!(classify(crate::UDP, 50160, 23784, &pkts), Some("RTP"));
}

proptest::proptest! {
    /// Any bytes: an answer, never a panic; a claim only with a well-formed walk.
    #[test]
    fn never_panics(d in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..200)) {
        let p = run(&INSPECTOR, TCP, 12345, 40000, false, &d);
        if p != Probe::NotForUs {
            proptest::prop_assert!(walk(&d).is_some_and(|w| w.fields > 0));
        }
    }
}
