use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// Built by hand: length 16, version 1, protocol type 0, sequence 1, attribute 0 (request),
// then the S-Bus telegram "read 4 counters from 0" to station 1 (station, command 0x00,
// count - 1 = 3, address 0x0000), then its CRC-16/XMODEM 0x7118.
const REQUEST: &str = "00000010 01 00 0001 00 0100030000 7118";

#[test]
fn crc_catalogue_check_value() {
    // CRC-16/XMODEM's check value over "123456789" in the CRC catalogue: 0x31C3.
    assert_eq!(crc_xmodem(b"123456789"), 0x31c3);
}

#[test]
fn whole_registry_names_ethersbus() {
    assert_eq!(classify(UDP, 5050, 50000, &[(true, &hex(REQUEST))]), Some("Ether-S-Bus"));
    // Off port 5050 the probe still says yes, but the collectd inspector, earlier in the
    // registry and not port-bound, reads this frame as a 16-byte "host" part and takes it.
    assert_eq!(run(&INSPECTOR, UDP, 6000, 50000, false, &hex(REQUEST)), Probe::Certain(&LABEL));
}

#[test]
fn near_misses() {
    let ok = hex(REQUEST);
    assert_eq!(run(&INSPECTOR, UDP, 5050, 4000, false, &ok), Probe::Certain(&LABEL));
    let mut v = ok.clone();
    v[15] ^= 1; // CRC
    assert_eq!(run(&INSPECTOR, UDP, 5050, 4000, false, &v), Probe::NotForUs);
    let mut v = ok.clone();
    v[10] = 0x02; // a changed telegram breaks the CRC
    assert_eq!(run(&INSPECTOR, UDP, 5050, 4000, false, &v), Probe::NotForUs);
    let mut v = ok.clone();
    v[3] = 0x11; // length one more than the datagram
    assert_eq!(run(&INSPECTOR, UDP, 5050, 4000, false, &v), Probe::NotForUs);
}

#[test]
fn header_fields_checked_with_a_valid_crc() {
    // Each header change comes with a recomputed CRC, so only the field rule can refuse it.
    for (at, val) in [(4, 2u8), (5, 1), (8, 3)] {
        let mut v = hex(REQUEST);
        v[at] = val;
        v.truncate(14);
        let c = crc_xmodem(&v).to_be_bytes();
        v.extend_from_slice(&c);
        assert_eq!(run(&INSPECTOR, UDP, 5050, 4000, false, &v), Probe::NotForUs, "byte {at}");
    }
}
