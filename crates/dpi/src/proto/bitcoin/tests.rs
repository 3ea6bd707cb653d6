use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// Captured in two network namespaces (scripts/netcap, scenario "bitcoin"; tshark 4.0.17
// dissects it as bitcoin): the "version" message python-bitcoinlib 0.12.2 encodes, which a
// connection opens with (developer reference, "Connecting To Peers"), sent to mainnet's
// default port tcp/8333. Its header (developer reference, message headers): mainnet magic,
// "version" NUL-padded to 12 bytes, payload length 112 (0x70) little endian, checksum.
const VERSION: &str = "f9beb4d9 76657273696f6e0000000000 70000000 d02a210a";
// The 112-byte payload: protocol version 60002, services 1, timestamp, both addresses
// (IPv4-mapped 192.0.2.2 and 192.0.2.1, port 8333), nonce, user agent
// "/python-bitcoinlib:0.12.2/", start height -1, relay 1.
const VERSION_PAYLOAD: &str = "
    62ea000001000000000000006846066b0000000001000000
    0000000000000000000000000000ffffc0000202208d010000000000000000000000000000000000ffffc0000201208d
    c2c8c5882b4c56e81a2f707974686f6e2d626974636f696e6c69623a302e31322e322fffffffff01";

#[test]
fn version_header() {
    let mut v = hex(VERSION);
    v.extend_from_slice(&hex(VERSION_PAYLOAD));
    assert_eq!(v.len(), 136);
    assert_eq!(classify(TCP, 8333, 41800, &[(true, &v)]), Some("BITCOIN"));
    // The header alone (a segment cut after it) is enough, on any port.
    assert_eq!(run(&INSPECTOR, TCP, 4000, 55348, false, &hex(VERSION)), Probe::Certain(&LABEL));
}

#[test]
fn near_misses() {
    // Another magic.
    let mut v = hex(VERSION);
    v[0] = 0xf8;
    assert_eq!(run(&INSPECTOR, TCP, 8333, 55348, false, &v), Probe::NotForUs);
    // Upper case, or a letter after the padding.
    let mut v = hex(VERSION);
    v[4] = b'V';
    assert_eq!(run(&INSPECTOR, TCP, 8333, 55348, false, &v), Probe::NotForUs);
    let mut v = hex(VERSION);
    v[15] = b'x';
    assert_eq!(run(&INSPECTOR, TCP, 8333, 55348, false, &v), Probe::NotForUs);
    // Payload over 32 MiB.
    let mut v = hex(VERSION);
    v[19] = 0x10;
    assert_eq!(run(&INSPECTOR, TCP, 8333, 55348, false, &v), Probe::NotForUs);
    // Too short for a header.
    assert_eq!(run(&INSPECTOR, TCP, 8333, 55348, false, &hex(VERSION)[..20]), Probe::NotForUs);
}
