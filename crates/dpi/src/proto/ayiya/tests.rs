use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// Built from draft-massar-v6ops-ayiya-02 (no AYIYA client installs here): a Forward (opcode 1)
// with a 16-byte integer identity, a SHA-1 signature (5 words), shared-secret authentication,
// next header IPv6 carrying an ICMPv6 echo request (its checksum left zero). tshark 4.0.17:
// eth:ip:udp:ayiya:ipv6:icmpv6, every AYIYA field decoded as built.
const FORWARD: &str = "415211296b06395020010db8000000000000000000000002000102030405060708090a0b0c0d0e0f101112136000000000083a4020010db800000000000000000000000220010db80000000000000000000000018000000000010001";

#[test]
fn spec_vector() {
    assert_eq!(classify(UDP, 5072, 40000, &[(true, &hex(FORWARD))]), Some("Ayiya"));
}

#[test]
fn near_misses() {
    let mut v = hex(FORWARD);
    v[1] = 0x42; // SHA-1 with a 4-word signature
    assert_eq!(run(&INSPECTOR, UDP, 5072, 40000, false, &v), Probe::NotForUs);
    let mut v = hex(FORWARD);
    v[3] = 99; // next header 99
    assert_eq!(run(&INSPECTOR, UDP, 5072, 40000, false, &v), Probe::NotForUs);
    let mut v = hex(FORWARD);
    v[44] = 0x45; // the carried packet is not IPv6
    assert_eq!(run(&INSPECTOR, UDP, 5072, 40000, false, &v), Probe::NotForUs);
    // Headers longer than the datagram.
    assert_eq!(run(&INSPECTOR, UDP, 5072, 40000, false, &hex(FORWARD)[..30]), Probe::NotForUs);
    assert_eq!(run(&INSPECTOR, UDP, 5073, 40000, false, &hex(FORWARD)), Probe::NotForUs);
}
