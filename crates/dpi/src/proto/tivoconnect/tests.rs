use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// Built from the TiVo Connect Discovery specification's beacon format (no TiVo software
// installs here): flavor 1 with swversion, method, identity, machine, platform and services
// lines. tshark 4.0.17 dissects it, over UDP and TCP port 2190, as "TiVoConnect Discovery
// Protocol, Living Room (6520001802E00C4)", Flavor 1, every field named.
const BEACON: &str = "7469766f636f6e6e6563743d310a737776657273696f6e3d31312e306b2d30312d322d3635320a6d6574686f643d62726f6164636173740a6964656e746974793d3635323030303138303245303043340a6d616368696e653d4c6976696e6720526f6f6d0a706c6174666f726d3d7463642f536572696573330a73657276696365733d5469566f4d656469615365727665723a38302f687474700a";

#[test]
fn spec_beacon() {
    assert_eq!(classify(UDP, 2190, 2190, &[(true, &hex(BEACON))]), Some("TiVoConnect"));
    assert_eq!(classify(TCP, 2190, 40000, &[(true, &hex(BEACON))]), Some("TiVoConnect"));
}

#[test]
fn near_misses() {
    let v = hex(BEACON);
    let mut w = v.clone();
    w[0] = b'T'; // case matters
    assert_eq!(run(&INSPECTOR, UDP, 2190, 2190, false, &w), Probe::NotForUs);
    let mut w = v.clone();
    w[12] = b'x'; // flavor not a number
    assert_eq!(run(&INSPECTOR, UDP, 2190, 2190, false, &w), Probe::NotForUs);
    let mut w = v.clone();
    w[13] = b' '; // no end of line after the flavor
    assert_eq!(run(&INSPECTOR, UDP, 2190, 2190, false, &w), Probe::NotForUs);
    assert_eq!(run(&INSPECTOR, UDP, 2190, 2190, false, b"tivoconnect="), Probe::NotForUs);
}
