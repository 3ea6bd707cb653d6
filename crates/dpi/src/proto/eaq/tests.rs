use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// EAQ.pcap frames 45 and 46, then the client's next probe (sequence + 1).
const P1: &str = "0000000000000dda0007161c00009000";
const P2: &str = "0000000000000dda0007161c00006000";
const P3: &str = "0000000100000dda0007161c00009000";

#[test]
fn corpus_vectors() {
    let (a, b, c) = (hex(P1), hex(P2), hex(P3));
    assert_eq!(
        classify(UDP, 6000, 39185, &[(true, &a), (false, &b), (true, &c)]),
        Some("EAQ")
    );
}

#[test]
fn size_and_port() {
    assert_eq!(run(&INSPECTOR, UDP, 6000, 4000, false, &hex(P1)), Probe::Unsure);
    assert_eq!(run(&INSPECTOR, UDP, 6001, 4000, false, &hex(P1)), Probe::NotForUs);
    assert_eq!(run(&INSPECTOR, UDP, 6000, 4000, false, &[0; 17]), Probe::NotForUs);
}
