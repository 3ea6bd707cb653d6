use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// Built from RFC 4582 §5.1 (version 1 over TCP): a Hello (primitive 11) from the client and the
// server's HelloAck (12) with SUPPORTED-ATTRIBUTES (type 10) and SUPPORTED-PRIMITIVES (type 11),
// conference 1, transaction 1, user 2. tshark 4.0.17 (`--enable-heuristic bfcp_tcp`) dissects
// both as bfcp: Hello, HelloAck, conference id 1, attribute types 10,11.
const HELLO: &str = "200b00000000000100010002";
const HELLO_ACK: &str = "200c00030000000100010002150402041705010204000000";
// Built from RFC 8855 §5.1 (version 2 over UDP), conference 7; the R bit set on the answer.
// (tshark 4.0's heuristic accepts version 1 only, so this one is the specification's alone.)
const V2_HELLO: &str = "400b0000000000070009000a";
const V2_ACK: &str = "500c0003000000070009000a150402041705010204000000";

#[test]
fn two_messages_of_one_conference() {
    let flow = [(true, &hex(HELLO)[..]), (false, &hex(HELLO_ACK)[..])];
    assert_eq!(classify(TCP, 5070, 40000, &flow), Some("BFCP"));
    let flow = [(true, &hex(V2_HELLO)[..]), (false, &hex(V2_ACK)[..])];
    assert_eq!(classify(UDP, 5071, 40001, &flow), Some("BFCP"));
}

#[test]
fn one_header_is_not_enough() {
    // The first message only gathers evidence.
    assert_eq!(run(&INSPECTOR, TCP, 5070, 40000, false, &hex(HELLO)), Probe::Unsure);
    assert_eq!(classify(TCP, 5070, 40000, &[(true, &hex(HELLO)[..])]), None);
}

#[test]
fn another_conference_or_a_bad_header_is_not_bfcp() {
    let mut other = hex(HELLO_ACK);
    other[7] = 9; // conference 9, not 1
    let flow = [(true, &hex(HELLO)[..]), (false, &other[..])];
    assert_eq!(classify(TCP, 5070, 40000, &flow), None);
    for (at, v) in [(0, 0x60), (0, 0x21), (1, 0), (1, 18)] {
        let mut m = hex(HELLO_ACK);
        m[at] = v;
        assert_eq!(message(&m, false), None, "byte {at} = {v:#x}");
    }
    // A fragment, a datagram longer than its declared length.
    let mut f = hex(V2_HELLO);
    f[0] |= 0x08;
    assert_eq!(message(&f, true), None);
    let mut long = hex(V2_HELLO);
    long.extend_from_slice(&[0; 4]);
    assert_eq!(message(&long, true), None);
    // An attribute type outside RFC 8855's table.
    let mut a = hex(HELLO_ACK);
    a[12] = 19 << 1 | 1;
    assert_eq!(message(&a, false), None);
    assert_eq!(message(&hex(HELLO_ACK), false), Some(1));
}

/// The corpus's bfcp.pcapng (nDPI: BFCP over TCP and over UDP, both to 5070): each side sends
/// one 12-byte message of conference 1 whose header declares a 4-byte payload it does not
/// carry (FloorRequestQuery, then FloorRequestStatus).
#[test]
fn corpus_cut_messages() {
    let (q, s) = (hex("200300010000000100020504"), hex("200400010000000100020504"));
    assert_eq!(classify(TCP, 5070, 44450, &[(true, &q), (false, &s)]), Some("BFCP"));
    assert_eq!(classify(UDP, 5070, 47706, &[(true, &q), (false, &s)]), Some("BFCP"));
}
