use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// mqtt.pcap frame 2: CONNECT with "MQIsdp" level 3, 66 bytes.
const CONNECT: &str = "104000064d514973647003c20014001663626161626362616261636262626262616161616162000c30324435303530323233443300";

#[test]
fn corpus_vector() {
    let v = hex(CONNECT);
    // The capture's segment is 66 bytes; the vector above is cut, so rebuild its length.
    let mut full = v.clone();
    full.resize(66, 0);
    assert_eq!(classify(TCP, 1883, 41892, &[(true, &full)]), Some("MQTT"));
}

#[test]
fn length_and_name_checked() {
    let mut v = hex(CONNECT);
    v.resize(65, 0);
    assert_eq!(run(&INSPECTOR, TCP, 1883, 4000, false, &v), Probe::NotForUs);
    v.resize(66, 0);
    v[4] = b'X';
    assert_eq!(run(&INSPECTOR, TCP, 1883, 4000, false, &v), Probe::NotForUs);
}
