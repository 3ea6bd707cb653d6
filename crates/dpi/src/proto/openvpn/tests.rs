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

// openvpn.pcap frames 1 and 3: a client's hard reset (session id 334857703d96db39) and its
// P_ACK_V1 under the same session id, with no packet of the server in the flow (the server's
// side went through a NAT and is a flow of its own); frames 2 and 5: that server side, its
// hard reset (session id d31c3a6964602fa0) and its P_CONTROL_V1 (the TLS ServerHello).
const CLIENT_ONLY: [&str; 2] = [
    "38334857703d96db390000000000",
    "28334857703d96db390100000000d31c3a6964602fa0",
];
const SERVER_ONLY: [&str; 2] = [
    "40d31c3a6964602fa00100000000334857703d96db3900000000",
    "20d31c3a6964602fa00100000001334857703d96db3900000001160303007a0200007603033b6f",
];

#[test]
fn one_side_decides_by_its_session_id() {
    for pkts in [CLIENT_ONLY, SERVER_ONLY] {
        let (a, b) = (hex(pkts[0]), hex(pkts[1]));
        assert_eq!(
            classify(UDP, 443, 60201, &[(true, &a), (true, &b)]),
            Some("OpenVPN")
        );
        // The reset alone, or a next packet under another session id, decides nothing.
        assert_eq!(classify(UDP, 443, 60201, &[(true, &a)]), None);
        let mut other = b.clone();
        other[1] ^= 1;
        assert_eq!(classify(UDP, 443, 60201, &[(true, &a), (true, &other)]), None);
    }
}
