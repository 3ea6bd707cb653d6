use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// raknet.pcap frame 17: open connection reply 1 (0x06).
const REPLY1: &str = "0600ffff00fefefefefdfdfdfd12345678000591a536051df60005d4";

#[test]
fn corpus_vector() {
    assert_eq!(classify(UDP, 60028, 60689, &[(false, &hex(REPLY1))]), Some("RakNet"));
}

// raknet.pcap, flow 32953 -> 60021: a frame set with one reliable frame of 0x90 bits.
const FRAMES: &str = "840000004000900000000900000000490f027c000000000015e93b00";

#[test]
fn frame_set_must_fill_the_datagram() {
    assert_eq!(classify(UDP, 60021, 32953, &[(true, &hex(FRAMES))]), Some("RakNet"));
    let mut v = hex(FRAMES);
    v.push(0);
    assert_eq!(run(&INSPECTOR, UDP, 60021, 32953, false, &v), Probe::NotForUs);
    let mut w = hex(FRAMES);
    w[10] = 0x42; // not one of RakNet's connection messages
    assert_eq!(run(&INSPECTOR, UDP, 60021, 32953, false, &w), Probe::NotForUs);
}

#[test]
fn magic_at_the_right_offset() {
    let mut v = hex(REPLY1);
    v[0] = 0x01; // a ping keeps the magic after its timestamp, not at byte 1
    assert_eq!(run(&INSPECTOR, UDP, 19132, 4000, false, &v), Probe::NotForUs);
    let mut w = hex(REPLY1);
    w[5] = 0;
    assert_eq!(run(&INSPECTOR, UDP, 19132, 4000, false, &w), Probe::NotForUs);
}
