use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// Murmur 1.3.4 (Debian mumble-server 1.3.4-4) in a network namespace, pinged by a client that
// sends the documented 12-byte UDP ping; tcpdump capture h2-mumble.pcap frames 1-2. The answer:
// version 1.3.4, the identifier echoed, 0 users, 50 maximum, 72000 bit/s. (tshark 4.0 has no
// Mumble dissector: it shows "data".)
const PING: &str = "000000000123456789abcdef";
const PONG: &str = "000103040123456789abcdef000000000000003200011940";

#[test]
fn murmur_ping() {
    let flow: &[(bool, &[u8])] = &[(true, &hex(PING)), (false, &hex(PONG))];
    assert_eq!(classify(UDP, 64738, 37504, flow), Some("Mumble"));
    // The request alone decides nothing.
    assert_eq!(run(&INSPECTOR, UDP, 64738, 37504, false, &hex(PING)), Probe::Unsure);
    assert_eq!(run(&INSPECTOR, UDP, 64738, 37504, true, &hex(PONG)), Probe::Certain(&LABEL));
}

#[test]
fn near_misses() {
    let mut v = hex(PING);
    v[3] = 1; // request type is not 0
    assert_eq!(run(&INSPECTOR, UDP, 64738, 37504, false, &v), Probe::NotForUs);
    let mut v = hex(PONG);
    v[1] = 2; // major version 2
    assert_eq!(run(&INSPECTOR, UDP, 64738, 37504, true, &v), Probe::NotForUs);
    let mut v = hex(PONG);
    v[15] = 0x33; // more users than the maximum
    assert_eq!(run(&INSPECTOR, UDP, 64738, 37504, true, &v), Probe::NotForUs);
    let mut v = hex(PONG);
    v.push(0); // 25 bytes
    assert_eq!(run(&INSPECTOR, UDP, 64738, 37504, true, &v), Probe::NotForUs);
    // An answer-shaped packet from the client is not the answer.
    assert_eq!(run(&INSPECTOR, UDP, 64738, 37504, false, &hex(PONG)), Probe::NotForUs);
}
