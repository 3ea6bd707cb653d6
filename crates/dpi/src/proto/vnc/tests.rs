use super::*;
use crate::proto::testkit::{classify, probe as run};

// RFC 6143 section 7.1.1: the ProtocolVersion message "RFB 003.008\n" (no VNC payload in
// the corpus; its VNC flows are port scans).
#[test]
fn rfc_version_string() {
    assert_eq!(classify(TCP, 5900, 40000, &[(false, b"RFB 003.008\n")]), Some("VNC"));
}

#[test]
fn malformed_versions() {
    assert_eq!(run(&INSPECTOR, TCP, 5900, 4000, true, b"RFB 003.008"), Probe::NotForUs);
    assert_eq!(run(&INSPECTOR, TCP, 5900, 4000, true, b"RFB 0x3.008\n"), Probe::NotForUs);
}
