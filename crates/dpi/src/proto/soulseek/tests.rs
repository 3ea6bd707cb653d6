use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// Captured in network namespaces: the aioslsk 1.7.1 client (PyPI) logging in as "h3tester" to
// a stub server on 198.51.100.2:2242 (client version 175, MD5 and minor version 1). tshark's
// slsk dissector, forced onto the port, reads "Message Length: 70" (it predates the newer
// login fields and leaves them undecoded).
const LOGIN: &str = "460000000100000008000000683374657374657206000000683370617373af0000002000000066\
    3164636165666431386139663661396538623861333031323963373366323201000000";
// PeerInit serialized by aioslsk 1.7.1's message classes (username "h3tester", type P,
// token 0), written to a pcap on tcp/2234: tshark's slsk dissector shows "Message Type: Peer
// Init (Byte: 1)", "Username: h3tester", "Connection Type: Peer Connection (Char: P)".
const PEER_INIT: &str = "1600000001080000006833746573746572010000005000000000";

#[test]
fn aioslsk_vectors() {
    assert_eq!(run(&INSPECTOR, TCP, 2242, 57818, false, &hex(LOGIN)), Probe::Certain(&LABEL));
    assert_eq!(run(&INSPECTOR, TCP, 2234, 40000, false, &hex(PEER_INIT)), Probe::Certain(&LABEL));
    assert_eq!(classify(TCP, 2242, 57818, &[(true, &hex(LOGIN))]), Some("Soulseek"));
    assert_eq!(classify(TCP, 50000, 40000, &[(true, &hex(PEER_INIT))]), Some("Soulseek"));
}

#[test]
fn near_misses() {
    let no = |v: &[u8]| run(&INSPECTOR, TCP, 2242, 57818, false, v) == Probe::NotForUs;
    let v = hex(LOGIN);
    assert!(no(&v[..v.len() - 1]));
    let mut w = v.clone();
    w[4] = 2; // code 2 (SetWaitPort) is no opening
    assert!(no(&w));
    let mut w = v.clone();
    w[38] = b'g'; // MD5 digit that is not hex
    assert!(no(&w));
    let mut w = v.clone();
    w.push(0);
    w[0] += 1; // a byte after the minor version
    assert!(no(&w));
    let mut w = hex(PEER_INIT);
    w[21] = b'X'; // connection type
    assert!(no(&w));
    let mut w = hex(PEER_INIT);
    w[5] = 9; // username longer than the message
    assert!(no(&w));
}
