use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// 1kxun.pcap frame 12: an Information-request (type 11) with client id, ORO and elapsed time.
const INFO: &str = "0b27731d0001000e000100011db8e6fb703eacf0f0070006000400170018000800020000";

#[test]
fn corpus_vector() {
    assert_eq!(classify(UDP, 547, 546, &[(true, &hex(INFO))]), Some("DHCPV6"));
}

#[test]
fn options_must_fit() {
    let v = hex(INFO);
    assert_eq!(run(&INSPECTOR, UDP, 547, 546, false, &v[..v.len() - 1]), Probe::NotForUs);
    assert_eq!(run(&INSPECTOR, UDP, 5000, 4000, false, &v), Probe::NotForUs);
}
