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

#[test]
fn acks_and_a_pong_without_the_magic() {
    // raknet.pcap, 148.153.35.205:60005 -> 192.168.2.100:32951 (nDPI: RakNet): an ACK with one
    // range record (1 to 2); 192.168.2.100:44501 -> 148.153.35.205:60031: an ACK of five single
    // records; 44501 -> 59935: an unconnected pong whose string "AA" ends the datagram.
    let range = hex("c0000100010000020000");
    let singles = hex("c000050100000001000000010000000100000001000000");
    let pong = hex("1c111111111111111122222222222222223333333333333333333333333333333300024141");
    assert_eq!(classify(UDP, 32951, 60005, &[(true, &range)]), Some("RakNet"));
    assert_eq!(classify(UDP, 60031, 44501, &[(true, &singles)]), Some("RakNet"));
    assert_eq!(classify(UDP, 59935, 44501, &[(true, &pong)]), Some("RakNet"));
    // Records that do not end the datagram, a count of 0, an unknown record flag, a string
    // length that does not end the datagram: not RakNet.
    let mut long = singles.clone();
    long.push(0);
    let mut zero = range.clone();
    zero[2] = 0;
    let mut flag = range.clone();
    flag[3] = 2;
    let mut bad_pong = pong.clone();
    bad_pong[34] = 3;
    for d in [long, zero, flag, bad_pong] {
        assert_eq!(run(&INSPECTOR, UDP, 32951, 60005, false, &d), Probe::NotForUs, "{d:02x?}");
    }
}
