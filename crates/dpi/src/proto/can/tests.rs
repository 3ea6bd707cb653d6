use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// can.pcap frame 2.
const FRAME: &str = "49534f313138393801026a12f109083b20d6700000ff7ffd10006a13f109083b20206effffffffff10000160ff";

#[test]
fn corpus_vector() {
    assert_eq!(
        classify(UDP, 25353, 56551, &[(true, &hex(FRAME))]),
        Some("Controller_Area_Network")
    );
}

#[test]
fn version_checked() {
    let mut v = hex(FRAME);
    v[8] = 9;
    assert_eq!(run(&INSPECTOR, UDP, 11898, 4000, false, &v), Probe::NotForUs);
}
