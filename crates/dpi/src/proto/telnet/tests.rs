use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// telnet.pcap frame 4: nine negotiations.
const NEG: &str = "fffd03fffb18fffb1ffffb20fffb21fffb22fffb27fffd05fffb23";

#[test]
fn corpus_vector() {
    assert_eq!(classify(TCP, 23, 1550, &[(true, &hex(NEG))]), Some("Telnet"));
}

#[test]
fn text_is_not_negotiation() {
    let mut v = hex(NEG);
    v.push(b'a');
    assert_eq!(run(&INSPECTOR, TCP, 23, 4000, false, &v), Probe::NotForUs);
    assert_eq!(run(&INSPECTOR, TCP, 23, 4000, false, &[0xff, 0xff, 0xff]), Probe::NotForUs);
}
