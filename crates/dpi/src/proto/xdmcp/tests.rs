use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// XDMCP 1.1 Query (opcode 2) listing no authentication names: version 1, opcode 2, length 1,
// an ARRAYofARRAY8 of 0 entries. xdmcp.pcap.out: UDP to 177.
const QUERY: &str = "0001 0002 0001 00";

#[test]
fn query_on_177() {
    assert_eq!(classify(UDP, 177, 61426, &[(true, &hex(QUERY))]), Some("XDMCP"));
    // A Request (opcode 7) carrying "MIT-MAGIC-COOKIE-1" as in the capture's PLAIN TEXT.
    let mut req = hex("0001 0007 0000");
    let body = b"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x12MIT-MAGIC-COOKIE-1";
    req[5] = body.len() as u8;
    req.extend_from_slice(body);
    assert_eq!(run(&INSPECTOR, UDP, 177, 61426, false, &req), Probe::Certain(&LABEL));
    // Off port 177 the registry does not ask.
    assert_eq!(classify(UDP, 178, 61426, &[(true, &hex(QUERY))]), None);
}

#[test]
fn near_misses() {
    for h in ["0002 0002 0001 00", "0001 000f 0001 00", "0001 0002 0002 00", "0001 0002 0000 00"] {
        assert_eq!(run(&INSPECTOR, UDP, 177, 4000, false, &hex(h)), Probe::NotForUs, "{h}");
    }
}
