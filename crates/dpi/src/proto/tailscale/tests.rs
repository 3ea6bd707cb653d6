use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// Built from the disco message layout of the Tailscale client source (disco/disco.go; no
// Tailscale build here, tshark 4.0.17 has no disco dissector): the magic, a 32-byte key, a
// 24-byte nonce and 62 bytes standing for a sealed Ping (16-byte authenticator, type, version,
// 12-byte transaction id, 32-byte node key). Key, nonce and box are arbitrary bytes.
const PING: &str = "5453f09f92ac7eb6aacc74d5f356043c9b38f227b8d546f43dd158aca118cacb8a193b517d6752fa8a8297c1b4498c71ffc31bfed41b0374e6f3ea3443769631be4bd691833e82e6307fc316e97878b243f6662474c9f9053fe3baa4fb4492e06f56495d3ee3adb1156f16b1a55380fb6cc8693d90d119c7537598f0";

#[test]
fn disco_ping() {
    assert_eq!(classify(UDP, 41641, 41641, &[(true, &hex(PING))]), Some("Tailscale"));
}

#[test]
fn near_misses() {
    let mut v = hex(PING);
    v[5] = 0xad; // another emoji
    assert_eq!(run(&INSPECTOR, UDP, 41641, 41641, false, &v), Probe::NotForUs);
    // Too short to hold a sealed message.
    assert_eq!(run(&INSPECTOR, UDP, 41641, 41641, false, &hex(PING)[..79]), Probe::NotForUs);
}
