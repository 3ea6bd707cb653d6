use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// wow.pcap frame 54: the server's greeting (length 0x30).
const HELLO: &str = "3000574f524c44204f4620574152435241465420434f4e4e454354494f4e202d2053455256455220544f20434c49454e5400";

#[test]
fn corpus_vector() {
    assert_eq!(
        classify(TCP, 3724, 39329, &[(false, &hex(HELLO))]),
        Some("WorldOfWarcraft")
    );
}

#[test]
fn length_checked() {
    let mut v = hex(HELLO);
    v.push(0);
    assert_eq!(run(&INSPECTOR, TCP, 3724, 4000, true, &v), Probe::NotForUs);
}
