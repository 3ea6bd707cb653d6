use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// amqp.pcap frame 1: a method frame on channel 1, 0x21 bytes, frame end 0xce.
const FRAME: &str = "01000100000021003c002800000863656c657279657610776f726b65722e68656172746265617400ce";

#[test]
fn corpus_vector() {
    assert_eq!(classify(TCP, 5672, 44205, &[(true, &hex(FRAME))]), Some("AMQP"));
    assert_eq!(classify(TCP, 5672, 44205, &[(true, b"AMQP\x00\x00\x09\x01")]), Some("AMQP"));
}

#[test]
fn frame_end_checked() {
    let mut v = hex(FRAME);
    let last = v.len() - 1;
    v[last] = 0xcf;
    assert_eq!(run(&INSPECTOR, TCP, 5672, 4000, false, &v), Probe::NotForUs);
}
