use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// kcp.pcap frame 2: an ACK segment (command 82), no data.
const ACK: &str = "0a00000052007f0014000000000000000100000000000000";

#[test]
fn corpus_vector() {
    assert_eq!(classify(UDP, 47356, 8000, &[(false, &hex(ACK))]), Some("KCP"));
    // Two segments of the same conversation.
    let two = [hex(ACK), hex(ACK)].concat();
    assert!(is_kcp(&two));
}

#[test]
fn must_fill_the_datagram() {
    let mut v = hex(ACK);
    v.push(0);
    assert_eq!(run(&INSPECTOR, UDP, 8000, 4000, false, &v), Probe::NotForUs);
    let mut w = hex(ACK);
    w[4] = 0x60;
    assert_eq!(run(&INSPECTOR, UDP, 8000, 4000, false, &w), Probe::NotForUs);
}
