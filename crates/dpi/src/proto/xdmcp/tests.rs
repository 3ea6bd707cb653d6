use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// Captured from Xvfb 21.1.7 ("Xvfb :7 -query", Debian xvfb) in two network namespaces
// (scripts/netcap, scenario "xdmcp"; tshark 4.0.17 dissects both as xdmcp), answered by a
// few lines standing in for a display manager. The XDMCP 1.1 Query (opcode 2): version 1,
// length 1, an ARRAYofARRAY8 of 0 authentication names.
const QUERY: &str = "0001 0002 0001 00";
// Xvfb's Request (opcode 7) after the Willing: display 7, no connection types or addresses,
// no authentication, the authorization names MIT-MAGIC-COOKIE-1 and XDM-AUTHORIZATION-1, an
// empty manufacturer display id.
const REQUEST: &str = "0001 0007 0034 0007 00 00 0000 0000 02
                       0012 4d49542d4d414749432d434f4f4b49452d31
                       0013 58444d2d415554484f52495a4154494f4e2d31 0000";

#[test]
fn query_on_177() {
    assert_eq!(classify(UDP, 177, 33116, &[(true, &hex(QUERY))]), Some("XDMCP"));
    assert_eq!(run(&INSPECTOR, UDP, 177, 33116, false, &hex(REQUEST)), Probe::Certain(&LABEL));
    // Off port 177 the registry does not ask.
    assert_eq!(classify(UDP, 178, 33116, &[(true, &hex(QUERY))]), None);
}

#[test]
fn near_misses() {
    for h in ["0002 0002 0001 00", "0001 000f 0001 00", "0001 0002 0002 00", "0001 0002 0000 00"] {
        assert_eq!(run(&INSPECTOR, UDP, 177, 4000, false, &hex(h)), Probe::NotForUs, "{h}");
    }
    // The Request with a length one past the datagram.
    let mut long = hex(REQUEST);
    long[5] += 1;
    assert_eq!(run(&INSPECTOR, UDP, 177, 4000, false, &long), Probe::NotForUs);
}
