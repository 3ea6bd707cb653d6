use super::*;
use crate::proto::testkit::{hex, probe as run};
use crate::proto::testkit::probe_hints;
use crate::{Dir, Hints};

/// One probe call on a multicast (or unicast) datagram between `port` and `port`.
fn probe_mc(port: u16, multicast: bool, d: &[u8]) -> Probe {
    let hints = Hints {
        transport: UDP,
        server_port: port,
        client_port: port,
        dir: Dir::ToServer,
        nth: 0,
        multicast,
        server_ip: crate::NO_ADDR,
        client_ip: crate::NO_ADDR,
    };
    probe_hints(&INSPECTOR, hints, d)
}

#[test]
fn version_2_over_ipv6() {
    // hsrp2_ipv6.pcapng: fe80::1:2029 -> ff02::66:2029 (nDPI: HSRP), a 6-byte datagram: one
    // TLV of type 2, length 4.
    let d = hex("020400000001");
    assert_eq!(probe_mc(2029, true, &d), Probe::Certain(&LABEL));
    assert_eq!(probe_mc(2029, false, &d), Probe::NotForUs, "unicast");
    let mut bad = d.clone();
    bad[1] = 5; // the TLV runs past the datagram
    assert_eq!(probe_mc(2029, true, &bad), Probe::NotForUs);
    // Different ports on the two ends: not HSRP.
    assert_eq!(run(&INSPECTOR, UDP, 2029, 40000, false, &d), Probe::NotForUs);
}

#[test]
fn versions_0_and_2_over_ipv4() {
    // RFC 2281 section 5: version 0, hello, state active (16), hello 3 s, hold 10 s, priority
    // 100, group 1, reserved 0, authentication "cisco\0\0\0", virtual address 10.0.0.1.
    let v0 = hex("00001003 0a640100 636973636f000000 0a000001");
    assert_eq!(probe_mc(1985, true, &v0), Probe::Certain(&LABEL));
    let mut bad = v0.clone();
    bad[2] = 3; // no such state
    assert_eq!(probe_mc(1985, true, &bad), Probe::NotForUs);
    // Version 2: a group state TLV (type 1, length 40): version 2, op code 0, state 6, IPv4,
    // then the rest zero-filled here.
    let mut v2 = hex("0128 02000604");
    v2.resize(42, 0);
    assert_eq!(probe_mc(1985, true, &v2), Probe::Certain(&LABEL));
    v2[5] = 5; // address family neither IPv4 nor IPv6
    assert_eq!(probe_mc(1985, true, &v2), Probe::NotForUs);
}

/// An mDNS query (ID 0, flags 0, one question: the header's first bytes read as HSRP version
/// 0, hello, state 0) is not HSRP: its bytes 8-16 are no NUL-padded password (RFC 2281 §5).
/// With the corpus's ports moved to 1985, 1kxun.pcap's mDNS queries were HSRP.
#[test]
fn an_mdns_query_is_not_version_0() {
    let q = hex("000000000001000000000000 0c5f676f6f676c6563617374045f746370056c6f63616c00 000c0001");
    assert_eq!(probe_mc(1985, true, &q), Probe::NotForUs);
    // The RFC's example with another password, and with none.
    let mut v0 = hex("00001003 0a640100 636973636f000000 0a000001");
    v0[8..16].copy_from_slice(b"s3cr3t!x");
    assert_eq!(probe_mc(1985, true, &v0), Probe::Certain(&LABEL));
    v0[8..16].copy_from_slice(&[0; 8]);
    assert_eq!(probe_mc(1985, true, &v0), Probe::Certain(&LABEL));
    v0[8..16].copy_from_slice(b"ab\0cd\0\0\0");
    assert_eq!(probe_mc(1985, true, &v0), Probe::NotForUs);
}
