use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// Built byte by byte from bnetdocs.org's C>S 0x50 SID_AUTH_INFO (no implementation of classic
// Battle.net could be installed here): the selector 01, then FF 50 3A00, protocol id 0,
// platform "68XI" (IX86), product "PX3W" (W3XP), version byte 0x1a, language "SUne" (enUS),
// local IP 0, time zone bias 0, MPQ locale and user language 0x409, "USA", "United States".
// tshark 4.0.17 has no dissector for it (a pcap of it reads "raw:ip:tcp:data").
const AUTH_INFO: &str = "01 ff503a00 00000000 36385849 50583357 1a000000 53556e65 00000000
    00000000 09040000 09040000 55534100 556e6974656420537461746573 00";

// Built from bnetdocs.org's W3GS_SEARCHGAME (0x2F) and the W3GS format notes it links: F7 2F,
// length 16, product "PX3W", version 0x1a, 0. tshark 4.0.17: "raw:ip:udp:data".
const SEARCH: &str = "f72f1000 50583357 1a000000 00000000";

#[test]
fn battle_net_auth_info() {
    let v = hex(AUTH_INFO);
    assert_eq!(v.len(), 59);
    assert_eq!(run(&INSPECTOR, TCP, 6112, 50000, false, &v), Probe::Certain(&LABEL));
    assert_eq!(classify(TCP, 6112, 50000, &[(true, &v)]), Some("Warcraft3"));
    // The selector in its own segment, the message in the next.
    assert_eq!(
        classify(TCP, 6112, 50000, &[(true, &v[..1]), (true, &v[1..])]),
        Some("Warcraft3")
    );
}

#[test]
fn battle_net_near_misses() {
    let v = hex(AUTH_INFO);
    let miss = |w: &[u8]| run(&INSPECTOR, TCP, 6112, 50000, false, w);
    // No selector, another selector (BNFTP), another message id.
    assert_eq!(miss(&v[1..]), Probe::NotForUs);
    let mut w = v.clone();
    w[0] = 0x02;
    assert_eq!(miss(&w), Probe::NotForUs);
    let mut w = v.clone();
    w[2] = 0x51;
    assert_eq!(miss(&w), Probe::NotForUs);
    // Protocol id, platform, product.
    for at in [5, 9, 13] {
        let mut w = v.clone();
        w[at] ^= 0x20;
        assert_eq!(miss(&w), Probe::NotForUs, "byte {at}");
    }
    // A length that cuts the country name, and a third string.
    let mut w = v.clone();
    w[3] = 0x39;
    assert_eq!(miss(&w), Probe::NotForUs);
    let mut w = v.clone();
    w[50] = 0;
    assert_eq!(miss(&w), Probe::NotForUs);
    // From the server, it is not the client's opening.
    assert_eq!(run(&INSPECTOR, TCP, 6112, 50000, true, &v), Probe::NotForUs);
}

#[test]
fn lan_search() {
    let v = hex(SEARCH);
    assert_eq!(run(&INSPECTOR, UDP, 6112, 6112, false, &v), Probe::Certain(&LABEL));
    assert_eq!(classify(UDP, 6112, 6112, &[(true, &v)]), Some("Warcraft3"));
    let miss = |w: &[u8]| run(&INSPECTOR, UDP, 6112, 6112, false, w);
    let mut w = v.clone();
    w[0] = 0xff;
    assert_eq!(miss(&w), Probe::NotForUs);
    let mut w = v.clone();
    w[2] = 0x11; // length 17 in a 16-byte datagram
    assert_eq!(miss(&w), Probe::NotForUs);
    let mut w = v.clone();
    w[4] = b'Q'; // not a Warcraft III product
    assert_eq!(miss(&w), Probe::NotForUs);
    let mut w = v;
    w[1] = 0x32; // REFRESHGAME carries no product: not claimed
    assert_eq!(miss(&w), Probe::NotForUs);
}
