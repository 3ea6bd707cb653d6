use super::*;
use crate::tests::{probe, to_server, vector};

/// NTPv4.pcap, frame 1 (tshark: ntp); the same bytes off port 123 do not name the flow alone.
#[test]
fn packet_from_corpus() {
    let v = vector!("ntp");
    assert_eq!(probe(&INSPECTOR, to_server(UDP, 123), &v).0, Probe::Certain(&LABEL));
    assert_eq!(probe(&INSPECTOR, to_server(UDP, 9999), &v).0, Probe::Unsure);
}

/// android.pcap's SNTP exchange (client 45863 to udp/123: a mode-3 request that is zeros but
/// for its transmit timestamp, the server's mode-4 answer with that timestamp as its origin).
/// Moved off port 123 (`scripts/ports_moved.py`) it was EpicGames: Epic's opening test (24
/// zero bytes from byte 10) fits an SNTP request, and its answer test any answer. Off port 123
/// it is NTP by the echo; an answer that does not echo the request is not NTP.
#[test]
fn an_exchange_off_port_123_is_ntp_by_the_echo() {
    let h = crate::tests::parse_hex;
    let req = h("1b000000000000000000000000000000000000000000000000000000000000000000000000000000e1fcd68ee3126ecc");
    let ans = h("1c0100ec000000000000000c474f4f47e1fcd6d356f0a848e1fcd68ee3126ecce1fcd6d356f0a849e1fcd6d356f0a84b");
    let flow = [(true, &req[..]), (false, &ans[..])];
    assert_eq!(crate::proto::testkit::classify(UDP, 123, 45863, &flow), Some("NTP"));
    assert_eq!(crate::proto::testkit::classify(UDP, 33000, 45863, &flow), Some("NTP"));
    let mut other = ans.clone();
    other[31] ^= 1;
    let flow = [(true, &req[..]), (false, &other[..])];
    assert_ne!(crate::proto::testkit::classify(UDP, 33000, 45863, &flow), Some("NTP"));
    assert_ne!(crate::proto::testkit::classify(UDP, 33000, 45863, &flow), Some("EpicGames"));
}

fn at123(d: &[u8]) -> Probe {
    probe(&INSPECTOR, to_server(UDP, 123), d).0
}

/// Control (mode 6, RFC 9327) and private (mode 7, ntpd's) messages as their layouts give
/// them are NTP; a datagram whose first byte only has their version and mode bits is not
/// (with every corpus port moved to 123, 36 DNS and 34 Gnutella flows had been NTP).
#[test]
fn control_and_private_messages_have_their_layout() {
    // Mode 6 READVAR (opcode 2), sequence 1, association 0, offset 0, count 0.
    let read = [0x16, 0x02, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0];
    assert_eq!(at123(&read), Probe::Certain(&LABEL));
    let mut w = read;
    w[1] = 0x00; // opcode 0 is reserved
    assert_eq!(at123(&w), Probe::NotForUs);
    let mut w = read;
    w[11] = 1; // a byte of data the datagram lacks
    assert_eq!(at123(&w), Probe::NotForUs);
    // Mode 7 MON_GETLIST_1 (implementation 3, request 42), no items: the monlist request.
    let mut mon = vec![0x17, 0x00, 0x03, 0x2a, 0, 0, 0, 0];
    mon.resize(48, 0);
    assert_eq!(at123(&mon), Probe::Certain(&LABEL));
    let mut w = mon.clone();
    w[2] = 0x41; // implementation 65
    assert_eq!(at123(&w), Probe::NotForUs);
    let mut w = mon.clone();
    w[4..8].copy_from_slice(&[0, 9, 0, 72]); // nine items of 72 bytes in 48
    assert_eq!(at123(&w), Probe::NotForUs);
    // A DNS query for a 26-letter name in .com (48 bytes, ID 0x1e07: version 3, mode 6 by its
    // first byte; 0x1f07: mode 7) is not NTP.
    let mut q = vec![0x1e, 0x07, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0, 26];
    q.extend_from_slice(b"abcdefghijklmnopqrstuvwxyz");
    q.extend_from_slice(&[3, b'c', b'o', b'm', 0, 0, 1, 0, 1]);
    assert_eq!(q.len(), 48);
    assert_eq!(at123(&q), Probe::NotForUs);
    q[0] = 0x1f;
    assert_eq!(at123(&q), Probe::NotForUs);
}

/// ntpsec 1.2.2's ntpq (`ntpq -c rv -c peers`) against its ntpd, in a network namespace:
/// READSTAT and READVAR requests (leap indicator 3, 12 bytes) and the answers (count 345 in
/// 360 bytes, count 4 in 16).
#[test]
fn ntpq_control_messages() {
    let h = crate::tests::parse_hex;
    for m in ["d60200010000000000000000", "d60100020000000000000000", "d6810002c01600000000000445679014"] {
        assert_eq!(at123(&h(m)), Probe::Certain(&LABEL), "{m}");
    }
}

/// A client or server header's stratum is 0-16 (RFC 5905 §7.3; 17-255 reserved).
#[test]
fn stratum_is_checked() {
    let v = vector!("ntp");
    let mut w = v.clone();
    w[1] = 17;
    assert_eq!(at123(&w), Probe::NotForUs);
    w[1] = 16;
    assert_eq!(at123(&w), Probe::Certain(&LABEL));
}
