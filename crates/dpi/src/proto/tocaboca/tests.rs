use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// toca-boca.pcap frames 17 and 18: the client's connect (56 bytes) and the server's answer
// (an acknowledgement and a verify-connect, 76 bytes).
const CONNECT: &str = "ffff00010000000f071e143402ff01040000002c00000001000004b000008000000000020000000000000000000013880000000200000002";

#[test]
fn corpus_vector() {
    assert_eq!(classify(UDP, 5055, 55544, &[(true, &hex(CONNECT))]), Some("TocaBoca"));
}

#[test]
fn commands_must_fill() {
    let mut v = hex(CONNECT);
    v.push(0);
    assert_eq!(run(&INSPECTOR, UDP, 5055, 4000, false, &v), Probe::NotForUs);
    let mut w = hex(CONNECT);
    w[0] = 0; // a connect from a peer that already has an id
    assert_eq!(run(&INSPECTOR, UDP, 5055, 4000, false, &w), Probe::NotForUs);
}
