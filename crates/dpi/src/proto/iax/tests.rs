use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// Built from RFC 5456 (no IAX2 implementation installs here): a full frame (8.1.1), source call
// 0x1234, type IAX (6) subclass NEW (1), with the elements VERSION 2, CALLED NUMBER "100",
// CALLING NUMBER "200", CALLING NAME "Alice", USERNAME "alice", CAPABILITY and FORMAT (8.6).
// tshark 4.0.17 dissects it as eth:ip:udp:iax2, "IAX subclass: NEW (1)", every element named.
const NEW: &str = "9234000000000003000006010b020002010331303002033230300405416c6963650605616c69636508040000000c090400000004";
// Same source: a POKE (subclass 0x1e) with no elements; tshark: "IAX subclass: POKE (30)".
const POKE: &str = "80420000000000050000061e";

#[test]
fn spec_vectors() {
    assert_eq!(classify(UDP, 4569, 4569, &[(true, &hex(NEW))]), Some("IAX"));
    assert_eq!(classify(UDP, 4569, 40000, &[(true, &hex(POKE))]), Some("IAX"));
    // The NEW's elements suffice off the port; the bare POKE does not.
    assert_eq!(run(&INSPECTOR, UDP, 5000, 40000, false, &hex(NEW)), Probe::Certain(&LABEL));
    assert_eq!(run(&INSPECTOR, UDP, 5000, 40000, false, &hex(POKE)), Probe::NotForUs);
}

#[test]
fn near_misses() {
    let mut v = hex(NEW);
    v[0] &= 0x7f; // a mini frame
    assert_eq!(run(&INSPECTOR, UDP, 4569, 4569, false, &v), Probe::NotForUs);
    let mut v = hex(NEW);
    v[10] = 2; // voice, not IAX control
    assert_eq!(run(&INSPECTOR, UDP, 4569, 4569, false, &v), Probe::NotForUs);
    let mut v = hex(NEW);
    v[3] = 7; // NEW to an existing call
    assert_eq!(run(&INSPECTOR, UDP, 4569, 4569, false, &v), Probe::NotForUs);
    let mut v = hex(NEW);
    v.push(0x0b); // a dangling element id
    assert_eq!(run(&INSPECTOR, UDP, 4569, 4569, false, &v), Probe::NotForUs);
    let mut v = hex(NEW);
    v[13] = 3; // VERSION's length runs into the next element, the walk ends past the datagram
    assert_eq!(run(&INSPECTOR, UDP, 4569, 4569, false, &v), Probe::NotForUs);
}
