use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// source_engine.pcap frame 16.
const QUERY: &str = "ffffffff54536f7572636520456e67696e6520517565727900";

#[test]
fn corpus_vector() {
    assert_eq!(classify(UDP, 27015, 21285, &[(true, &hex(QUERY))]), Some("Source_Engine"));
}

#[test]
fn others_refused() {
    let v = hex(QUERY);
    assert_eq!(run(&INSPECTOR, UDP, 27015, 4000, false, &v[..20]), Probe::NotForUs);
    assert_eq!(run(&INSPECTOR, UDP, 27015, 4000, false, &[0xff; 8]), Probe::NotForUs);
}
