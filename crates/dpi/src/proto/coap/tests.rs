use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// Built by hand from RFC 7252 section 3: a confirmable GET (0x42: version 1, type 0, token
// length 2; code 0.01), message id 0x7d34, token 8e3c, option Uri-Path (11, delta 11, length 7)
// "storage", the resource that coap_mqtt.pcap.out's PLAIN TEXT shows.
const GET_STORAGE: &str = "42017d34 8e3c b773746f72616765";
// The piggybacked answer: acknowledgement (0x62), 2.05 Content (0x45), the same id and token,
// option Content-Format (12, length 1) text/plain (0), payload marker, "hello".
const CONTENT: &str = "62457d34 8e3c c100 ff68656c6c6f";
// An Empty acknowledgement (section 4.2): the 4-byte header alone.
const EMPTY_ACK: &str = "60007d35";

#[test]
fn whole_registry_names_coap() {
    let (q, a) = (hex(GET_STORAGE), hex(CONTENT));
    assert_eq!(classify(UDP, 5683, 46819, &[(true, &q), (false, &a)]), Some("COAP"));
    assert_eq!(classify(UDP, 5683, 33499, &[(true, &hex(EMPTY_ACK))]), Some("COAP"));
    // 6LoWPAN-compressed port range.
    assert_eq!(classify(UDP, 61620, 33499, &[(true, &q)]), Some("COAP"));
}

#[test]
fn only_on_coap_ports() {
    assert_eq!(classify(UDP, 5684, 46819, &[(true, &hex(GET_STORAGE))]), None);
    assert_eq!(classify(UDP, 40000, 46819, &[(true, &hex(GET_STORAGE))]), None);
    // The probe itself refuses off the ports, not only the engine's filter.
    assert_eq!(run(&INSPECTOR, UDP, 40000, 46819, false, &hex(GET_STORAGE)), Probe::NotForUs);
}

#[test]
fn near_misses() {
    let ok = hex(GET_STORAGE);
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
    v[6] = 0xb8; // the option claims one byte more than the datagram holds
    assert_eq!(run(&INSPECTOR, UDP, 5683, 4000, false, &v), Probe::NotForUs);
    let mut v = ok.clone();
    v[6] = 0xf7; // option delta nibble 15 is reserved
    assert_eq!(run(&INSPECTOR, UDP, 5683, 4000, false, &v), Probe::NotForUs);
    // A payload marker with nothing after it is a format error.
    let a = hex(CONTENT);
    assert_eq!(run(&INSPECTOR, UDP, 5683, 4000, true, &a), Probe::Certain(&LABEL));
    assert_eq!(run(&INSPECTOR, UDP, 5683, 4000, true, &a[..9]), Probe::NotForUs);
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
