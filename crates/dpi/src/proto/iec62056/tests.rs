use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// The SNRM frame of the DLMS UA examples (client address 0x21, server 0x03, control 0x93),
// whose FCS bytes 0f 01 are what CRC-16/X-25 gives. Gurux's implementation, gurux-dlms 1.0.203
// (PyPI), makes the same bytes: GXDLMSClient(True, 16, 1, Authentication.NONE, None,
// InterfaceType.HDLC).snrmRequest(). (tshark 4.0.17 has no DLMS dissector to check it against.)
const SNRM: &str = "7ea0070321930f017e";
// A wrapper PDU built by hand (Green Book 7.3.3.2): version 1, source wPort 0x10 (public
// client), destination wPort 1 (management logical device), length 5, then a 5-byte APDU.
const WRAPPED: &str = "0001 0010 0001 0005 c001c10001";
// The AARQ of gurux-dlms 1.0.203 in the wrapper framing: GXDLMSClient(True, 16, 1,
// Authentication.NONE, None, InterfaceType.WRAPPER).aarqRequest(): wPorts 0x10 and 1, length
// 31, then the AARQ APDU (0x60) with the LN application context and an InitiateRequest.
const WRAPPED_AARQ: &str =
    "0001 0010 0001 001f 601da109060760857405080101be10040e01000000065f1f0400401e5dffff";

#[test]
fn crc_catalogue_check_value() {
    // CRC-16/IBM-SDLC check value over "123456789" in the CRC catalogue: 0x906E.
    assert_eq!(crc_x25(b"123456789"), 0x906e);
}

#[test]
fn whole_registry_names_iec62056() {
    // HDLC is checked on any port, over TCP and UDP.
    assert_eq!(classify(TCP, 40000, 50002, &[(true, &hex(SNRM))]), Some("IEC62056"));
    assert_eq!(classify(UDP, 4059, 50001, &[(true, &hex(SNRM))]), Some("IEC62056"));
    assert_eq!(classify(TCP, 4059, 50000, &[(true, &hex(WRAPPED))]), Some("IEC62056"));
    assert_eq!(classify(TCP, 4059, 50000, &[(true, &hex(WRAPPED_AARQ))]), Some("IEC62056"));
    assert_eq!(classify(UDP, 4059, 50000, &[(true, &hex(WRAPPED_AARQ))]), Some("IEC62056"));
}

#[test]
fn near_misses() {
    let ok = hex(SNRM);
    assert_eq!(run(&INSPECTOR, TCP, 4000, 5000, false, &ok), Probe::Certain(&LABEL));
    let mut v = ok.clone();
    v[6] ^= 0x80; // FCS
    assert_eq!(run(&INSPECTOR, TCP, 4000, 5000, false, &v), Probe::NotForUs);
    let mut v = ok.clone();
    v[2] = 0x08; // frame length one more than the frame
    assert_eq!(run(&INSPECTOR, TCP, 4000, 5000, false, &v), Probe::NotForUs);
    let mut v = ok.clone();
    v[8] = 0x7f; // closing flag
    assert_eq!(run(&INSPECTOR, TCP, 4000, 5000, false, &v), Probe::NotForUs);
    let mut v = ok.clone();
    v[1] = 0x90; // frame format type 9
    assert_eq!(run(&INSPECTOR, TCP, 4000, 5000, false, &v), Probe::NotForUs);
    // The wrapper only on port 4059, and only with its length.
    let w = hex(WRAPPED);
    assert_eq!(run(&INSPECTOR, TCP, 4059, 5000, false, &w), Probe::Certain(&LABEL));
    assert_eq!(run(&INSPECTOR, TCP, 4000, 5000, false, &w), Probe::NotForUs);
    assert_eq!(run(&INSPECTOR, TCP, 4059, 5000, false, &w[..12]), Probe::NotForUs);
    let mut v = w.clone();
    v[1] = 2; // wrapper version 2
    assert_eq!(run(&INSPECTOR, TCP, 4059, 5000, false, &v), Probe::NotForUs);
}
