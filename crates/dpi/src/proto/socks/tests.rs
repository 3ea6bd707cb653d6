use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

#[test]
fn corpus_vector() {
    // socks.pcap frames 47 and 49: greeting offering no-auth and user/password, server picks 0.
    let (g, r) = (hex("05020001"), hex("0500"));
    assert_eq!(classify(TCP, 1080, 53535, &[(true, &g), (false, &r)]), Some("SOCKS"));
}

#[test]
fn greeting_alone_and_bad_counts() {
    assert_eq!(run(&INSPECTOR, TCP, 1080, 4000, false, &hex("05020001")), Probe::Unsure);
    assert_eq!(run(&INSPECTOR, TCP, 1080, 4000, false, &hex("050500")), Probe::NotForUs);
}
