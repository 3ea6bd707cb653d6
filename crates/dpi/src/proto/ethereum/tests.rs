use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

/// A discovery v4 ping built from the devp2p discv4 spec: hash (32 bytes), signature (64 bytes
/// and recovery id 1), type 1, then RLP [version 4, from [ip, udp, tcp], to [ip, udp, tcp],
/// expiration] (addresses from the documentation blocks of RFC 5737). Lengths by hand: each endpoint 5+3+3 = 11 bytes (list header 0xcb), body
/// 1+12+12+5 = 30 (0xde); 129 bytes in all.
fn ping() -> Vec<u8> {
    let mut v = vec![0xab; 32];
    v.extend_from_slice(&[0x11; 64]);
    v.push(0x01); // recovery id
    v.push(0x01); // ping
    v.extend_from_slice(&hex(
        "de 04 cb 84c0000201 82765f 82765f cb 84c6336402 82765f 82765f 845f5e1000",
    ));
    v
}

/// An EIP-8 RLPx auth (EIP-8: a u16 size of the rest, then the ECIES ciphertext, which starts
/// with the 0x04 of the uncompressed ephemeral key).
fn auth(size: u16) -> Vec<u8> {
    let mut v = size.to_be_bytes().to_vec();
    v.push(0x04);
    v.extend((1..size).map(|i| (i * 7) as u8));
    v
}

#[test]
fn discovery_ping_is_ethereum() {
    let p = ping();
    assert_eq!(p.len(), 129);
    assert_eq!(classify(UDP, 30303, 30303, &[(true, &p)]), Some("ETHEREUM"));
    // The node port on one side only.
    assert_eq!(classify(UDP, 40001, 30303, &[(true, &p)]), Some("ETHEREUM"));
}

#[test]
fn discovery_near_misses() {
    let mut p = ping();
    p[96] = 2; // recovery id out of range
    assert_eq!(run(&INSPECTOR, UDP, 30303, 30303, false, &p), Probe::NotForUs);
    let mut p = ping();
    p[97] = 7; // no such packet type
    assert_eq!(run(&INSPECTOR, UDP, 30303, 30303, false, &p), Probe::NotForUs);
    let mut p = ping();
    p.push(0); // the list no longer fills the datagram
    assert_eq!(run(&INSPECTOR, UDP, 30303, 30303, false, &p), Probe::NotForUs);
    // Off the node ports the engine never asks.
    assert_eq!(classify(UDP, 4000, 5000, &[(true, &ping())]), None);
}

#[test]
fn rlpx_auth_is_ethereum() {
    let a = auth(300);
    assert_eq!(classify(TCP, 30303, 40000, &[(true, &a)]), Some("ETHEREUM"));
    // Legacy (pre-EIP-8) auth: exactly 307 bytes from the public key on.
    let mut l = vec![0x04];
    l.extend_from_slice(&[0x5a; 306]);
    assert_eq!(run(&INSPECTOR, TCP, 30303, 40000, false, &l), Probe::Certain(&LABEL));
}

#[test]
fn rlpx_near_misses() {
    let mut a = auth(300);
    a[2] = 0x05; // not an uncompressed point
    assert_eq!(run(&INSPECTOR, TCP, 30303, 40000, false, &a), Probe::NotForUs);
    let mut a = auth(300);
    a.pop(); // size no longer matches
    assert_eq!(run(&INSPECTOR, TCP, 30303, 40000, false, &a), Probe::NotForUs);
    // Too short to hold the ECIES overhead.
    assert_eq!(run(&INSPECTOR, TCP, 30303, 40000, false, &auth(100)), Probe::NotForUs);
}

#[test]
fn rlp_long_form() {
    assert_eq!(rlp_list(&[0xf8, 0x38]), Some((2, 56)));
    assert_eq!(rlp_list(&[0xf8, 0x37]), None); // non-canonical
    assert_eq!(rlp_list(&[0xb8, 0x38]), None); // a string, not a list
    assert_eq!(rlp_list(&[]), None);
}
