use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// mssql_tds.pcap frame 10: the server's 34-byte answer (type 4).
const ANSWER: &str = "0401002200330100fd0100f9000000000000000000fd0000ba000000000000000000";

#[test]
fn corpus_vector() {
    assert_eq!(classify(TCP, 1433, 5555, &[(false, &hex(ANSWER))]), Some("MsSQL-TDS"));
}

#[test]
fn header_checked() {
    let v = hex(ANSWER);
    assert_eq!(run(&INSPECTOR, TCP, 1433, 4000, true, &v[..33]), Probe::NotForUs);
    let mut w = hex(ANSWER);
    w[0] = 0x05;
    assert_eq!(run(&INSPECTOR, TCP, 1433, 4000, true, &w), Probe::NotForUs);
    // s7comm.pcap, flow 4185 -> 102: TPKT + ISO connection request, not TDS.
    let s7 = hex("0300001611e00000000700c1020100c2020102c0010a");
    assert_eq!(run(&INSPECTOR, TCP, 102, 4185, false, &s7), Probe::NotForUs);
}
