use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// Built from Omron's FINS manuals (no FINS implementation installs here) and checked with
// tshark 4.0.17, which dissects both as "OMRON FINS Protocol":
// over UDP, Memory Area Read (0101) of 10 DM words from address 100, ICF 0x80, GCT 2, node 1 to
// node 2, SID 0x19;
const READ_DM: &str = "80000200010000020019010182006400000a";
// over TCP, the client's first frame: FINS/TCP Node Address Data Send (command 0), node 0.
const NODE_SEND: &str = "46494e530000000c000000000000000000000000";

#[test]
fn spec_vectors() {
    assert_eq!(classify(UDP, 9600, 9600, &[(true, &hex(READ_DM))]), Some("FINS"));
    assert_eq!(classify(TCP, 9600, 40000, &[(true, &hex(NODE_SEND))]), Some("FINS"));
}

#[test]
fn near_misses() {
    let mut v = hex(READ_DM);
    v[0] = 0x90; // a reserved ICF bit
    assert_eq!(run(&INSPECTOR, UDP, 9600, 9600, false, &v), Probe::NotForUs);
    let mut v = hex(READ_DM);
    v[10] = 0x08; // no MRC 0x08
    assert_eq!(run(&INSPECTOR, UDP, 9600, 9600, false, &v), Probe::NotForUs);
    let mut v = hex(READ_DM);
    v[1] = 1; // RSV
    assert_eq!(run(&INSPECTOR, UDP, 9600, 9600, false, &v), Probe::NotForUs);
    let mut v = hex(NODE_SEND);
    v[11] = 5; // FINS/TCP command 5
    assert_eq!(run(&INSPECTOR, TCP, 9600, 40000, false, &v), Probe::NotForUs);
    // Off port 9600.
    assert_eq!(run(&INSPECTOR, UDP, 9601, 9601, false, &hex(READ_DM)), Probe::NotForUs);
}
