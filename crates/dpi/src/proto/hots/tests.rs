use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// hots.pcapng frame 36: 20 bytes from port 1119.
const PKT: &str = "0000000000000000000000000000400009ef65de";

#[test]
fn corpus_vector() {
    assert_eq!(
        classify(UDP, 50609, 1119, &[(true, &hex(PKT))]),
        Some("Heroes_of_the_Storm")
    );
}

#[test]
fn port_and_marker() {
    assert_eq!(run(&INSPECTOR, UDP, 5000, 4000, false, &hex(PKT)), Probe::NotForUs);
    let mut v = hex(PKT);
    v[14] = 0x41;
    assert_eq!(run(&INSPECTOR, UDP, 1119, 4000, false, &v), Probe::NotForUs);
}
