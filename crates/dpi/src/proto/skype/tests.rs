use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// Built by hand from skype.pcap.out (nDPI): flow 93 is one 79-byte frame (37 bytes of UDP
// payload) from 192.168.1.34:13021 to 157.55.56.168:40006, flow 230 one 60-byte frame (18
// bytes) to 71.62.0.85:33647. The bytes past the header are encrypted, so any do; the header
// follows nDPI's rule: first byte 0x70-0x7f or RTP-like 0x80-0xbf, third byte 0x02.
const RELAY: &str = "7e4c02a1 93d8c4e5 0f1b2c3d 4e5f6071 8293a4b5 c6d7e8f9 0a1b2c3d 4e5f6071 8293a4b5 c6";
const PEER: &str = "9a17021c 5d3e8f40 a2b3c4d5 e6f70819 2a3b";

#[test]
fn the_capture_flows_are_skype() {
    let relay = hex(RELAY);
    assert_eq!(relay.len(), 37);
    assert_eq!(classify(UDP, 40006, 13021, &[(true, &relay)]), Some("Skype_Teams"));
    let peer = hex(PEER);
    assert_eq!(peer.len(), 18);
    assert_eq!(classify(UDP, 33647, 13021, &[(true, &peer)]), Some("Skype_Teams"));
    assert_eq!(LABEL.app, "Skype_TeamsCall");
}

#[test]
fn near_misses_are_not_skype() {
    let v = hex(RELAY);
    assert_eq!(run(&INSPECTOR, UDP, 40006, 13021, false, &v), Probe::Certain(&LABEL));
    // Another message type in the third byte: nDPI gives up at once.
    let mut w = v.clone();
    w[2] = 0x03;
    assert_eq!(run(&INSPECTOR, UDP, 40006, 13021, false, &w), Probe::NotForUs);
    // First bytes nDPI leaves to SNMP (0x30), CAPWAP (0x00), HSRP/RADIUS (0x01), and ranges
    // outside its three.
    for b in [0x30, 0x00, 0x01, 0x10, 0x45, 0x6f, 0xc0, 0xff] {
        w = v.clone();
        w[0] = b;
        assert_ne!(
            run(&INSPECTOR, UDP, 40006, 13021, false, &w),
            Probe::Certain(&LABEL),
            "first byte {b:#04x}"
        );
    }
    // Shorter than 16 bytes: not yet (the type is right, a later datagram may do).
    assert_eq!(run(&INSPECTOR, UDP, 40006, 13021, false, &v[..15]), Probe::Unsure);
    // Shorter than Skype's 11-byte header: over.
    assert_eq!(run(&INSPECTOR, UDP, 40006, 13021, false, &v[..10]), Probe::NotForUs);
    // Battle.net, HTTP-like UDP and Zoom's port are never Skype.
    for p in [80, 1119, 8801] {
        assert_eq!(run(&INSPECTOR, UDP, p, 13021, false, &v), Probe::NotForUs);
        assert_eq!(run(&INSPECTOR, UDP, 40006, p, false, &v), Probe::NotForUs);
    }
}

#[test]
fn only_the_first_four_datagrams_count() {
    // skype_udp.pcap.out: one flow named on its fourth datagram (DPI packets: 4). Three
    // datagrams with the payload type but too short, then one that fits.
    let short = hex("6b2f02aa bbccddee ff0011");
    let v = hex(PEER);
    let four = [(true, &short[..]), (true, &short[..]), (true, &short[..]), (true, &v[..])];
    assert_eq!(classify(UDP, 39262, 35990, &four), Some("Skype_Teams"));
    let five = [
        (true, &short[..]),
        (true, &short[..]),
        (true, &short[..]),
        (true, &short[..]),
        (true, &v[..]),
    ];
    assert_eq!(classify(UDP, 39262, 35990, &five), None);
    // A first datagram of another type ends it, whatever follows.
    let other = hex("6b2f05aa bbccddee ff0011");
    assert_eq!(classify(UDP, 39262, 35990, &[(true, &other), (true, &v)]), None);
}

#[test]
fn ports_of_other_protocols_are_left_to_them() {
    let v = hex(RELAY);
    // Every server port of the Skype flows in skype.pcap.out and skype_udp.pcap.out stays open.
    let out_ports = [40001, 40034, 33033, 45493, 63773, 33647, 15120, 26635, 39262, 443];
    for p in out_ports {
        assert_eq!(
            run(&INSPECTOR, UDP, p, 13021, false, &v),
            Probe::Certain(&LABEL),
            "port {p}"
        );
    }
    // fuzz-2020-02-16-11740.pcap: a RADIUS Accounting-Request of 629 bytes (code 4, length
    // 0x0275) to 1813 fits the header test; so does CIP I/O on 2222 (cip_io.pcap: item count
    // 2, item type 0x8002 little-endian). Both are nDPI's RADIUS and CIP flows.
    let mut radius = hex("04890275 1698c060 5ca474cc 7f277bbe e4277f12");
    radius.resize(629, 0);
    assert_eq!(run(&INSPECTOR, UDP, 1813, 29200, false, &radius), Probe::NotForUs);
    let cip = hex("02000280 0800787b 3a00e8cb 5e04b100 0c000300 fdffffff ffffffff 0000");
    assert_eq!(run(&INSPECTOR, UDP, 2222, 2222, false, &cip), Probe::NotForUs);
    assert_ne!(classify(UDP, 1813, 29200, &[(true, &radius)]), Some("Skype_Teams"));
}
