use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// Shapes as nDPI's radmin.c tests them (client hello of 10 bytes, server reply of 46), the
// bytes not fixed there set to arbitrary values.
const HELLO: &str = "01000000 01 000000 0808";

fn reply() -> Vec<u8> {
    let mut r = hex("01000000 25 0000 02120802 00 00 0a");
    r.resize(46, 0x5a);
    r
}

#[test]
fn hello_and_reply() {
    assert_eq!(run(&INSPECTOR, TCP, 4899, 50000, false, &hex(HELLO)), Probe::Unsure);
    assert_eq!(
        classify(TCP, 4899, 50000, &[(true, &hex(HELLO)), (false, &reply())]),
        Some("Radmin")
    );
    let resume = hex("01000000 05 000000 2727 00000000");
    assert_eq!(
        classify(TCP, 4899, 50001, &[(true, &resume), (false, &resume)]),
        Some("Radmin")
    );
}

#[test]
fn near_misses() {
    // The hello alone, a hello that is not the client's first packet, a reply of another size.
    assert_eq!(classify(TCP, 4899, 50000, &[(true, &hex(HELLO))]), None);
    assert_eq!(run(&INSPECTOR, TCP, 4899, 50000, true, &hex(HELLO)), Probe::NotForUs);
    let mut r = reply();
    r.push(0);
    assert_eq!(run(&INSPECTOR, TCP, 4899, 50000, true, &r), Probe::NotForUs);
    let mut r = reply();
    r[13] = 0x0b;
    assert_eq!(run(&INSPECTOR, TCP, 4899, 50000, true, &r), Probe::NotForUs);
    // After a hello, a reply-sized packet of other bytes ends it.
    assert_eq!(
        classify(TCP, 4899, 50000, &[(true, &hex(HELLO)), (false, &[0u8; 46])]),
        None
    );
}
