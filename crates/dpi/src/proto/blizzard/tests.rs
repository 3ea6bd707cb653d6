use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

#[test]
fn battle_net_hello() {
    // blizzard.pcap flows 4-5 (tcp/1119): the client's first message; the rest is arbitrary.
    let v = hex("4100000a6652edc6 0a0b0c0d0e0f1011121314");
    assert_eq!(classify(TCP, 1119, 50082, &[(true, &v)]), Some("Blizzard"));
    // The same bytes from the server, or to another port, are not the hello.
    assert_eq!(run(&INSPECTOR, TCP, 1119, 50082, true, &v), Probe::NotForUs);
    assert_eq!(run(&INSPECTOR, TCP, 1120, 50082, false, &v), Probe::NotForUs);
}

#[test]
fn length_framed_on_3724() {
    // blizzard.pcap flow 3 (tcp/3724): type, then a body length of 5 = segment length - 8.
    let v = hex("01000000 05000000 0a03414243");
    assert_eq!(classify(TCP, 3724, 42710, &[(true, &v)]), Some("Blizzard"));
    let mut w = v.clone();
    w.push(0);
    assert_eq!(run(&INSPECTOR, TCP, 3724, 42710, false, &w), Probe::NotForUs);
    // Off 1119/3724 this framing is too common to mean Blizzard.
    assert_eq!(run(&INSPECTOR, TCP, 4000, 42710, false, &v), Probe::NotForUs);
}

#[test]
fn wow_greeting_without_length_byte() {
    // blizzard.pcap flow 1: PLAIN TEXT "WORLD OF WARCRAFT CONNECTION ", named WorldOfWarcraft.
    let v = b"WORLD OF WARCRAFT CONNECTION - SERVER TO CLIENT - V2\n";
    assert_eq!(classify(TCP, 3724, 50015, &[(false, v)]), Some("WorldOfWarcraft"));
}

#[test]
fn rumble_udp() {
    // blizzard.pcap flow 6: 60-byte frames, an 18-byte first datagram ending in sequence 1.
    let v = hex("0102030405060708090a0b0c0d0e 01000000");
    assert_eq!(classify(UDP, 50000, 1120, &[(true, &v)]), Some("Blizzard"));
    let mut w = v.clone();
    w[14] = 2;
    assert_eq!(run(&INSPECTOR, UDP, 50000, 1120, false, &w), Probe::NotForUs);
    assert_eq!(classify(UDP, 7521, 44282, &[(true, RUMBLE_HELLO)]), Some("Blizzard"));
    let mut w = RUMBLE_HELLO.to_vec();
    w[4] = 0;
    assert_eq!(run(&INSPECTOR, UDP, 7521, 44282, false, &w), Probe::NotForUs);
}
