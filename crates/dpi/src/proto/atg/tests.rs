use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// Built from Veeder-Root's serial interface manual (no tank gauge here; tshark 4.0.17 has no
// dissector for it and shows "data"): the display-format "In-Tank Inventory" inquiry for all
// tanks, <SOH>I20100<LF>, and the start of a display-format answer, <SOH><CR><LF>I20100<CR><LF>
// ... <ETX>.
const INVENTORY: &str = "014932303130300a";
const ANSWER: &str = "010d0a4932303130300d0a4e4f56203235";

#[test]
fn spec_vectors() {
    let mut answer = hex(ANSWER);
    answer.push(0x03);
    let flow: &[(bool, &[u8])] = &[(true, &hex(INVENTORY)), (false, &answer)];
    assert_eq!(classify(TCP, 10001, 40000, flow), Some("ATG"));
    assert_eq!(run(&INSPECTOR, TCP, 10001, 40000, true, &answer), Probe::Certain(&LABEL));
}

#[test]
fn near_misses() {
    let mut v = hex(INVENTORY);
    v[1] = b'X'; // function letter X
    assert_eq!(run(&INSPECTOR, TCP, 10001, 40000, false, &v), Probe::NotForUs);
    let mut v = hex(INVENTORY);
    v[5] = b'A'; // tank number not a number
    assert_eq!(run(&INSPECTOR, TCP, 10001, 40000, false, &v), Probe::NotForUs);
    // An answer without its closing ETX.
    assert_eq!(run(&INSPECTOR, TCP, 10001, 40000, true, &hex(ANSWER)), Probe::NotForUs);
    // Off port 10001.
    assert_eq!(run(&INSPECTOR, TCP, 10002, 40000, false, &hex(INVENTORY)), Probe::NotForUs);
}
