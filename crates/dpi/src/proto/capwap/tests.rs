use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// Built by hand from RFC 5415. A Discovery Request (section 5.1, message type 1): header
// preamble 0, HLEN 2 (0x10), WBID 1 (0x02), no flags, fragment fields 0; control header type
// 0x00000001, sequence 0, message element length 8 (the length field, the flags byte and the
// 5-byte Discovery Type element), flags 0; element Discovery Type (20), length 1, value 1.
const DISCOVERY: &str = "00100200 00000000 00000001 00 0008 00 0014000101";
// The same request broadcast with a radio MAC address (M bit, 0x10): HLEN 4 (0x20), the MAC
// length 6, the address and one pad byte (section 4.3: the Radio MAC Address field is padded
// to a 4-byte boundary).
const DISCOVERY_MAC: &str =
    "00200210 00000000 06 001122334455 00 00000001 00 0008 00 0014000101";
// A data channel keep-alive (section 4.4.1): K bit (0x08), no T bit; message element length
// 20, then the Session ID element (35) of 16 bytes.
const KEEPALIVE: &str = "00100208 00000000 0014 00230010 000102030405060708090a0b0c0d0e0f";
// A DTLS-protected control packet (preamble type 1, section 4.2): 3 reserved bytes, then one
// DTLS 1.2 handshake record of 3 bytes.
const DTLS: &str = "01000000 16fefd 0000 000000000000 0003 010203";

#[test]
fn whole_registry_names_capwap() {
    assert_eq!(classify(UDP, 5246, 12380, &[(true, &hex(DISCOVERY))]), Some("CAPWAP"));
    assert_eq!(classify(UDP, 5246, 12380, &[(true, &hex(DISCOVERY_MAC))]), Some("CAPWAP"));
    assert_eq!(classify(UDP, 5247, 12380, &[(true, &hex(KEEPALIVE))]), Some("CAPWAP"));
    assert_eq!(classify(UDP, 5246, 12379, &[(false, &hex(DTLS))]), Some("CAPWAP"));
}

#[test]
fn only_on_capwap_ports() {
    assert_eq!(run(&INSPECTOR, UDP, 5246, 4000, false, &hex(DISCOVERY)), Probe::Certain(&LABEL));
    assert_eq!(classify(UDP, 5248, 12380, &[(true, &hex(DISCOVERY))]), None);
    assert_eq!(run(&INSPECTOR, UDP, 5248, 12380, false, &hex(DISCOVERY)), Probe::NotForUs);
    assert_eq!(run(&INSPECTOR, UDP, 5248, 12380, false, &hex(CORPUS_DATA)), Probe::NotForUs);
}

#[test]
fn control_near_misses() {
    let ok = hex(DISCOVERY);
    let mut v = ok.clone();
    v[14] = 0x09; // element length one more than the datagram
    assert_eq!(run(&INSPECTOR, UDP, 5246, 4000, false, &v), Probe::NotForUs);
    let mut v = ok.clone();
    v.truncate(15); // cut inside the control header
    assert_eq!(run(&INSPECTOR, UDP, 5246, 4000, false, &v), Probe::NotForUs);
    let mut v = ok.clone();
    v[0] = 0x10; // version 1
    assert_eq!(run(&INSPECTOR, UDP, 5246, 4000, false, &v), Probe::NotForUs);
    let mut v = ok.clone();
    v[1] = 0x08; // HLEN 1 word, below the fixed header
    assert_eq!(run(&INSPECTOR, UDP, 5246, 4000, false, &v), Probe::NotForUs);
    let mut m = hex(DISCOVERY_MAC);
    m[8] = 7; // a MAC address of 7 bytes
    assert_eq!(run(&INSPECTOR, UDP, 5246, 4000, false, &m), Probe::NotForUs);
    // A fragment (F bit) cannot be length-checked: not decided on its own.
    let mut f = ok.clone();
    f[3] = 0x80;
    assert_eq!(run(&INSPECTOR, UDP, 5246, 4000, false, &f), Probe::Unsure);
}

#[test]
fn data_and_dtls_near_misses() {
    let mut k = hex(KEEPALIVE);
    k[9] = 0x13; // keep-alive element length one short, but the Session ID element is there
    assert_eq!(run(&INSPECTOR, UDP, 5247, 4000, false, &k), Probe::Certain(&LABEL));
    k[11] = 0x24; // and now an element of type 36 instead
    assert_eq!(run(&INSPECTOR, UDP, 5247, 4000, false, &k), Probe::NotForUs);
    let mut d = hex(DTLS);
    d[6] = 0xfe; // DTLS minor version 0xfe does not exist
    assert_eq!(run(&INSPECTOR, UDP, 5246, 4000, false, &d), Probe::NotForUs);
    let mut d = hex(DTLS);
    d[2] = 1; // reserved bytes after the preamble must be zero
    assert_eq!(run(&INSPECTOR, UDP, 5246, 4000, false, &d), Probe::NotForUs);
    let d = hex(DTLS);
    assert_eq!(run(&INSPECTOR, UDP, 5246, 4000, false, &d[..19]), Probe::NotForUs);
    // An 802.11 data frame (T bit, WBID 1): frame control 0x08 (type data, version 0).
    let mut w = hex("00100300 00000000 0801");
    w.extend_from_slice(&[0; 22]);
    assert_eq!(run(&INSPECTOR, UDP, 5247, 4000, false, &w), Probe::Certain(&LABEL));
    w[8] = 0x09; // 802.11 protocol version 1 in both bytes
    w[9] = 0x0d;
    assert_eq!(run(&INSPECTOR, UDP, 5247, 4000, false, &w), Probe::NotForUs);
}

// capwap_data.pcapng frame 1 (WTP to AC, UDP 5247): HLEN 4, WBID 1, T bit, W bit with 4 bytes
// of 802.11 frame info (RSSI -65, SNR 35) and 3 pad bytes, then a Cisco byte-swapped 802.11
// data frame (flags 0x11, frame control 0x08), of which the first 24 bytes are kept here.
const CORPUS_DATA: &str = "00200320 00000000 04bf2300 00000000
    11082c00 84802d2b4590 54f201e1b299 10f311eaeec1 7630";

#[test]
fn corpus_data_frame() {
    let v = hex(CORPUS_DATA);
    assert_eq!(run(&INSPECTOR, UDP, 5247, 41264, false, &v), Probe::Certain(&LABEL));
    assert_eq!(classify(UDP, 5247, 41264, &[(true, &v)]), Some("CAPWAP"));
    let mut w = v.clone();
    w[8] = 12; // wireless information longer than the header holds
    assert_eq!(run(&INSPECTOR, UDP, 5247, 41264, false, &w), Probe::NotForUs);
}
