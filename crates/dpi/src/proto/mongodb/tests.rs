use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// mongodb.pcap frame 20 (first 32 of 269 bytes): OP_QUERY (2004) on "admin.$cmd".
const QUERY: &str = "0d0100000000000000000000d40700000000000061646d696e2e24636d640000";

#[test]
fn corpus_vector() {
    assert_eq!(classify(TCP, 27017, 51358, &[(true, &hex(QUERY))]), Some("MongoDB"));
}

#[test]
fn tls_port_look_alike() {
    // mongo_false_positive.pcapng: a client segment whose header reads as an OP_REPLY.
    let v = hex("4b450000020601550000039e010000008fe0a8cf6b86210100aa049ac38595885b26e5356c8a3d8194");
    assert_eq!(run(&INSPECTOR, TCP, 443, 49542, false, &v), Probe::NotForUs);
}

#[test]
fn opcode_and_length_checked() {
    let mut v = hex(QUERY);
    v[12] = 0x99;
    assert_eq!(run(&INSPECTOR, TCP, 27017, 4000, false, &v), Probe::NotForUs);
    let mut w = hex(QUERY);
    w[0] = 0x10;
    w[1] = 0; // 16 bytes cannot hold this segment
    assert_eq!(run(&INSPECTOR, TCP, 27017, 4000, false, &w), Probe::NotForUs);
}

#[test]
fn whole_query() {
    // mongodb.pcap frame 12: a whole 59-byte OP_QUERY ("abtest.$cmd", getnonce).
    let v = hex("3b0000000000000000000000d4070000000000006162746573742e24636d640000000000ffffffff13000000106765746e6f6e6365000100000000");
    assert_eq!(run(&INSPECTOR, TCP, 27017, 55582, false, &v), Probe::Certain(&LABEL));
    assert_eq!(classify(TCP, 27017, 55582, &[(true, &v)]), Some("MongoDB"));
}
