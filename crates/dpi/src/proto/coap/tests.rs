use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// Captured from aiocoap 0.4.17 (PyPI) client and server in two network namespaces
// (scripts/netcap, scenario "coap"; tshark 4.0.17 dissects both as coap): a confirmable GET
// (0x42: version 1, type 0, token length 2; code 0.01, RFC 7252 section 3), message id 0x9cae,
// token b6f1, option Uri-Path (11, delta 11, length 11) "temperature".
const GET_TEMPERATURE: &str = "42019cae b6f1 bb74656d7065726174757265";
// The server's piggybacked answer: acknowledgement (0x62), 2.05 Content (0x45), the same id
// and token, option Content-Format (12, length 0: text/plain), payload marker, "22.5".
const CONTENT: &str = "62459cae b6f1 c0 ff32322e35";
// An Empty acknowledgement (section 4.2): the 4-byte header alone.
const EMPTY_ACK: &str = "60007d35";

#[test]
fn whole_registry_names_coap() {
    let (q, a) = (hex(GET_TEMPERATURE), hex(CONTENT));
    assert_eq!(classify(UDP, 5683, 46819, &[(true, &q), (false, &a)]), Some("COAP"));
    assert_eq!(classify(UDP, 5683, 33499, &[(true, &hex(EMPTY_ACK))]), Some("COAP"));
    // 6LoWPAN-compressed port range.
    assert_eq!(classify(UDP, 61620, 33499, &[(true, &q)]), Some("COAP"));
}

#[test]
fn only_on_coap_ports() {
    assert_eq!(classify(UDP, 5684, 46819, &[(true, &hex(GET_TEMPERATURE))]), None);
    assert_eq!(classify(UDP, 40000, 46819, &[(true, &hex(GET_TEMPERATURE))]), None);
    // The probe itself refuses off the ports, not only the engine's filter.
    assert_eq!(run(&INSPECTOR, UDP, 40000, 46819, false, &hex(GET_TEMPERATURE)), Probe::NotForUs);
}

#[test]
fn near_misses() {
    let ok = hex(GET_TEMPERATURE);
    assert_eq!(run(&INSPECTOR, UDP, 5683, 4000, false, &ok), Probe::Certain(&LABEL));
    let mut v = ok.clone();
    v[0] = 0x82; // version 2
    assert_eq!(run(&INSPECTOR, UDP, 5683, 4000, false, &v), Probe::NotForUs);
    let mut v = ok.clone();
    v[0] = 0x49; // token length 9 is reserved
    assert_eq!(run(&INSPECTOR, UDP, 5683, 4000, false, &v), Probe::NotForUs);
    let mut v = ok.clone();
    v[1] = 0x20; // code 1.00: class 1 is reserved
    assert_eq!(run(&INSPECTOR, UDP, 5683, 4000, false, &v), Probe::NotForUs);
    let mut v = ok.clone();
    v[6] = 0xbc; // the option claims one byte more than the datagram holds
    assert_eq!(run(&INSPECTOR, UDP, 5683, 4000, false, &v), Probe::NotForUs);
    let mut v = ok.clone();
    v[6] = 0xf7; // option delta nibble 15 is reserved
    assert_eq!(run(&INSPECTOR, UDP, 5683, 4000, false, &v), Probe::NotForUs);
    // A payload marker with nothing after it is a format error.
    let a = hex(CONTENT);
    assert_eq!(run(&INSPECTOR, UDP, 5683, 4000, true, &a), Probe::Certain(&LABEL));
    assert_eq!(run(&INSPECTOR, UDP, 5683, 4000, true, &a[..8]), Probe::NotForUs);
    // An Empty message carries nothing after the header.
    let mut e = hex(EMPTY_ACK);
    e.push(0);
    assert_eq!(run(&INSPECTOR, UDP, 5683, 4000, false, &e), Probe::NotForUs);
    // "GET " passes the header checks (version 1, code 2.05) but its "options" do not parse.
    assert_eq!(run(&INSPECTOR, UDP, 5683, 4000, false, b"GET / HTTP/1.1\r\n"), Probe::NotForUs);
}

#[test]
fn extended_option_lengths() {
    // Option Uri-Query (15): delta nibble 13 with extension 2, length 1 "a".
    let v = hex("4001 0001 d1 02 61");
    assert_eq!(run(&INSPECTOR, UDP, 5683, 4000, false, &v), Probe::Certain(&LABEL));
    // Length nibble 14 wants two more bytes: 269 + 0 = 269 bytes, which are not there.
    let w = hex("4001 0001 be 0000 61");
    assert_eq!(run(&INSPECTOR, UDP, 5683, 4000, false, &w), Probe::NotForUs);
}
