use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// Captured from pptp-linux 1.10.0 (run with --nolaunchpppd) against pptpd 1.4.0 in two network
// namespaces (scripts/netcap, scenario "pptp"; tshark 4.0.17 dissects it as pptp): the
// Start-Control-Connection-Request (RFC 2637 section 2.1), 156 bytes, magic cookie 0x1a2b3c4d,
// protocol version 1.0, framing and bearer capabilities 3, maximum channels 65535, firmware
// revision 1, host name "local" and vendor string "cananian" (pptp-linux's defaults), each in
// a 64-byte field.
const SCCRQ: &str = "
    009c00011a2b3c4d00010000010000000000000300000003ffff00016c6f63616c000000000000000000000000000000
    000000000000000000000000000000000000000000000000000000000000000000000000000000000000000063616e61
    6e69616e0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000
    000000000000000000000000";

fn sccrq() -> Vec<u8> {
    hex(SCCRQ)
}

#[test]
fn control_connection_request() {
    let m = sccrq();
    assert_eq!(m.len(), 156);
    assert_eq!(classify(TCP, 1723, 39942, &[(true, &m)]), Some("PPTP"));
    // The magic cookie is enough off the PPTP port too.
    assert_eq!(run(&INSPECTOR, TCP, 8000, 39942, false, &m), Probe::Certain(&LABEL));
}

#[test]
fn near_misses() {
    let ok = sccrq();
    let mut cookie = ok.clone();
    cookie[7] = 0x4e;
    let mut kind = ok.clone();
    kind[3] = 2; // management messages are not used
    let mut ctrl = ok.clone();
    ctrl[9] = 16;
    let mut res = ok.clone();
    res[11] = 1;
    let mut long = ok.clone();
    long[1] = 0x9d; // longer than the segment
    for (i, v) in [cookie, kind, ctrl, res, long].iter().enumerate() {
        assert_eq!(run(&INSPECTOR, TCP, 1723, 4000, false, v), Probe::NotForUs, "case {i}");
    }
}
