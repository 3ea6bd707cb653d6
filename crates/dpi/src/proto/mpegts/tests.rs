use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

/// mpegts.pcap: 10.1.16.48:40737 -> 230.200.201.23:1234 (nDPI: MPEG_TS), 1,316 bytes = 7 TS
/// packets; the first packet's header `47 01 01 17` (PID 0x101, payload only, counter 7), the
/// rest of each packet zero-filled here, with the capture's header on every packet.
fn datagram(packets: usize) -> Vec<u8> {
    let head = hex("47010117");
    let mut d = Vec::new();
    for _ in 0..packets {
        d.extend_from_slice(&head);
        d.resize(d.len() + TS - head.len(), 0);
    }
    d
}

#[test]
fn seven_ts_packets() {
    let d = datagram(7);
    assert_eq!(d.len(), 1316);
    assert_eq!(classify(UDP, 1234, 40737, &[(true, &d)]), Some("MPEG_TS"));
}

#[test]
fn near_misses() {
    let mut d = datagram(7);
    d.push(0); // not whole TS packets
    assert_eq!(run(&INSPECTOR, UDP, 1234, 40737, false, &d), Probe::NotForUs);
    let mut d = datagram(7);
    d[3 * TS] = 0x46; // a lost sync byte
    assert_eq!(run(&INSPECTOR, UDP, 1234, 40737, false, &d), Probe::NotForUs);
    let mut d = datagram(1);
    d[3] = 0x07; // adaptation field control 00 (reserved)
    assert_eq!(run(&INSPECTOR, UDP, 1234, 40737, false, &d), Probe::NotForUs);
    assert_eq!(run(&INSPECTOR, UDP, 1234, 40737, false, &[]), Probe::NotForUs);
}
