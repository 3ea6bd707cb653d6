use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// Built from the specification (no AFP server or client is installable here: Debian 12 has no
// netatalk): the DSI header of Apple's "AFP over TCP" and the DSIGetStatus and DSIOpenSession
// requests a client opens with. Written into a pcap on tcp/548, tshark dissects them as `dsi`:
// "Request GetStatus (1)", length 0; and OpenSession, request ID 2, "Option: Attention quantum
// (1)", "Quantum: 1024".
const GET_STATUS_REQ: &str = "00030001000000000000000000000000";
const OPEN_SESSION_REQ: &str = "00040002000000000000000600000000010400000400";
// The server's OpenSession reply, built the same way: tshark shows "Reply", "Error code: success
// (0)", "Option: Server quantum (0)", "Quantum: 1048576".
const OPEN_SESSION_REPLY: &str = "01040002000000000000000600000000000400100000";

#[test]
fn spec_messages() {
    for (v, to_client) in
        [(GET_STATUS_REQ, false), (OPEN_SESSION_REQ, false), (OPEN_SESSION_REPLY, true)]
    {
        assert_eq!(run(&INSPECTOR, TCP, 548, 40000, to_client, &hex(v)), Probe::Certain(&LABEL));
    }
    assert_eq!(classify(TCP, 548, 40000, &[(true, &hex(OPEN_SESSION_REQ))]), Some("AFP"));
    assert_eq!(classify(TCP, 10548, 40000, &[(true, &hex(GET_STATUS_REQ))]), Some("AFP"));
    // A GetStatus reply whose server information continues in the next segment.
    let mut status = hex("01030001000000000000012000000000");
    status.extend([0u8; 100]);
    assert_eq!(run(&INSPECTOR, TCP, 548, 40000, true, &status), Probe::Certain(&LABEL));
}

#[test]
fn near_misses() {
    let cases: [(&str, usize, u8); 7] = [
        (GET_STATUS_REQ, 0, 2),    // flags
        (GET_STATUS_REQ, 1, 2),    // DSICommand is not an opening message
        (GET_STATUS_REQ, 7, 1),    // offset in a request
        (GET_STATUS_REQ, 11, 4),   // data length with no data
        (GET_STATUS_REQ, 15, 1),   // reserved
        (OPEN_SESSION_REQ, 16, 3), // option type
        (OPEN_SESSION_REQ, 17, 5), // option length past the data
    ];
    for (v, at, b) in cases {
        let mut w = hex(v);
        w[at] = b;
        assert_eq!(run(&INSPECTOR, TCP, 548, 40000, false, &w), Probe::NotForUs, "{v} {at}");
    }
    let mut extra = hex(GET_STATUS_REQ);
    extra.push(0);
    assert_eq!(run(&INSPECTOR, TCP, 548, 40000, false, &extra), Probe::NotForUs);
    assert_eq!(run(&INSPECTOR, TCP, 548, 40000, false, &hex("0003000100")), Probe::NotForUs);
}
