use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// openvpn.pcap frames 395 and 397: the client's hard reset (opcode 7) and the server's
// (opcode 8), over UDP.
const CLIENT: &str = "38660ee29aa490b0597c5e6fd9ef3b0c639e18d77b18f391aca09497ec0000000157c20c2a0000000000";
const SERVER: &str = "40359085e4dd022e44e59373c35cafb43e7a231eea45b9ce4a809445880000000157c20c2d0100000000660ee29aa490b05900000000";
// 443-opvn.pcap frames 4 and 6: the same over TCP, framed by a length.
const TCP_CLIENT: &str = "002a38d67be45be5c201eb016435fcb1d6f60e1ac88b329546dc3c7abf0b9e000000015e3e7b980000000000";
const TCP_SERVER: &str = "00364019082e80f9ca5280215a4e44156e16067a54fe8ae743758cd691d0d6000000015e3e7b980100000000d67be45be5c201eb00000000";

#[test]
fn corpus_vectors() {
    let (c, s) = (hex(CLIENT), hex(SERVER));
    assert_eq!(classify(UDP, 13680, 13680, &[(true, &c), (false, &s)]), Some("OpenVPN"));
    let (c, s) = (hex(TCP_CLIENT), hex(TCP_SERVER));
    assert_eq!(classify(TCP, 1194, 52973, &[(true, &c), (false, &s)]), Some("OpenVPN"));
}

#[test]
fn the_client_reset_alone_decides_nothing() {
    assert_eq!(run(&INSPECTOR, UDP, 1194, 4000, false, &hex(CLIENT)), Probe::Unsure);
    let mut t = hex(TCP_CLIENT);
    t.push(0); // the frame length no longer matches
    assert_eq!(run(&INSPECTOR, TCP, 1194, 4000, false, &t), Probe::NotForUs);
}
