use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// s7comm.pcap frame 1: COTP connection request, destination TSAP 01 02 (PG).
const CR: &str = "0300001611e00000000700c1020100c2020102c0010a";

#[test]
fn corpus_vector() {
    assert_eq!(classify(TCP, 102, 4185, &[(true, &hex(CR))]), Some("S7Comm"));
}

#[test]
fn rdp_and_tsap() {
    // rdp.pcap frame 4: an X.224 request with RDP's negotiation, no TSAPs.
    let rdp = hex("030000130ee00000000000010008000b000000");
    assert_eq!(run(&INSPECTOR, TCP, 3389, 4000, false, &rdp), Probe::NotForUs);
    let mut v = hex(CR);
    v[17] = 0x10; // destination TSAP of another kind: on port 102 the data decides
    assert_eq!(run(&INSPECTOR, TCP, 102, 4000, false, &v), Probe::Unsure);
    assert_eq!(run(&INSPECTOR, TCP, 1102, 4000, false, &v), Probe::NotForUs);
}

// s7comm-plus.pcap, 192.168.25.177:53162 -> 192.168.25.131:102 (nDPI: S7CommPlus): the
// connection request naming TSAP "SIMATIC-ROOT-HMI", and the first 40 bytes of the first data
// PDU (217 bytes: protocol id 0x72, version 1, data length 0x00ca = 202; 7 + 4 + 202 + 4).
const PLUS_CR: &str = "030000241fe00000011200c1020620c21053494d415449432d524f4f542d484d49c0010a";
const PLUS_DATA: &str = "030000d902f080720100ca31000004ca0000000100000120360000011d00040000000000a1000000";

#[test]
fn s7comm_plus_after_its_connection_request() {
    let mut data = hex(PLUS_DATA);
    data.resize(0xd9, 0);
    let pkts = [(true, &hex(PLUS_CR)[..]), (true, &data[..])];
    assert_eq!(classify(TCP, 102, 53162, &pkts), Some("S7CommPlus"));
    // A version outside 1-3, or a data length past the segment, is not S7CommPlus.
    let mut bad = data.clone();
    bad[8] = 9;
    assert_eq!(run(&INSPECTOR, TCP, 102, 53162, false, &bad), Probe::NotForUs);
    let mut short = data.clone();
    short[9] = 0x01; // 0x01ca = 458 bytes of data in a 217-byte segment
    assert_eq!(run(&INSPECTOR, TCP, 102, 53162, false, &short), Probe::NotForUs);
}

