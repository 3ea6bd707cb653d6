use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// A link-layer RESET_LINK_STATES frame (control 0xC0, destination 1, source 1024) as commonly
// published in DNP3 primers; its header CRC bytes e9 21 are what CRC-16/DNP gives.
const RESET_LINK: &str = "056405c001000004e921";
// Built by hand (clause 9.2.4): a header of length 11 (control 0xC4 unconfirmed user data,
// destination 1, source 3) with its CRC, then one block of user data: transport header 0xC0,
// application control 0xC1, function READ, object group 60 variation 1 (class 0), qualifier 6,
// and that block's CRC.
const READ_CLASS0: &str = "05640bc4010003002735 c0c1013c0106f973";

#[test]
fn crc_catalogue_check_value() {
    // CRC-16/DNP's check value over "123456789" in the CRC catalogue (reveng): 0xEA82.
    assert_eq!(crc_dnp(b"123456789"), 0xea82);
}

#[test]
fn whole_registry_names_dnp3() {
    assert_eq!(classify(TCP, 20000, 50000, &[(true, &hex(READ_CLASS0))]), Some("DNP3"));
    assert_eq!(classify(UDP, 20000, 20000, &[(true, &hex(RESET_LINK))]), Some("DNP3"));
    // A header with a valid CRC is enough off the usual port.
    assert_eq!(classify(TCP, 4000, 50000, &[(true, &hex(RESET_LINK))]), Some("DNP3"));
}

#[test]
fn near_misses() {
    let ok = hex(RESET_LINK);
    assert_eq!(run(&INSPECTOR, TCP, 20000, 4000, false, &ok), Probe::Certain(&LABEL));
    let mut v = ok.clone();
    v[9] ^= 1; // CRC off by one bit
    assert_eq!(run(&INSPECTOR, TCP, 20000, 4000, false, &v), Probe::NotForUs);
    let mut v = ok.clone();
    v[5] = 0x01; // a changed address breaks the CRC
    assert_eq!(run(&INSPECTOR, TCP, 20000, 4000, false, &v), Probe::NotForUs);
    let mut v = ok.clone();
    v[1] = 0x65; // second start byte
    assert_eq!(run(&INSPECTOR, TCP, 20000, 4000, false, &v), Probe::NotForUs);
    assert_eq!(run(&INSPECTOR, TCP, 20000, 4000, false, &ok[..9]), Probe::NotForUs);
}

#[test]
fn length_below_five_refused() {
    // Length 4 is below the header's own 5 bytes; the CRC is made valid so only the length
    // rule can refuse it.
    let mut v = hex("056404c001000004");
    let c = crc_dnp(&v).to_le_bytes();
    v.extend_from_slice(&c);
    assert_eq!(run(&INSPECTOR, TCP, 20000, 4000, false, &v), Probe::NotForUs);
}
