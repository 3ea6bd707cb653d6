use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// rdp.pcap frame 4: X.224 connection request in TPKT (19 bytes).
const CR: &str = "030000130ee00000000000010008000b000000";

#[test]
fn corpus_vector() {
    assert_eq!(classify(TCP, 3389, 52494, &[(true, &hex(CR))]), Some("RDP"));
    // rdp2.pcap frame 1: RDP-UDP SYN (1232 bytes; first 16 kept, zero-padded).
    let mut u = hex("ffffffff00401801bbff568704d004d0");
    u.resize(1232, 0);
    assert_eq!(classify(UDP, 3389, 54759, &[(true, &u)]), Some("RDP"));
    // rdp2.pcap, flow 60355: flags 0x1a01.
    let mut u2 = hex("ffffffff00401a019fd6752b04d004d0");
    u2.resize(1232, 0);
    assert_eq!(classify(UDP, 3389, 60355, &[(true, &u2)]), Some("RDP"));
}

#[test]
fn lengths_checked() {
    let mut v = hex(CR);
    v.push(0);
    assert_eq!(run(&INSPECTOR, TCP, 3389, 4000, false, &v), Probe::NotForUs);
    // A TPKT carrying X.224 data (0xf0) is not a connection request.
    let dt = hex("0300000702f080");
    assert_eq!(run(&INSPECTOR, TCP, 3389, 4000, false, &dt), Probe::NotForUs);
    // s7comm.pcap: an ISO transport connection request with TSAPs (S7comm), not RDP.
    let s7 = hex("0300001611e00000000700c1020100c2020102c0010a");
    assert_eq!(run(&INSPECTOR, TCP, 102, 4000, false, &s7), Probe::NotForUs);
}
