use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// A server-browser request by the game's message format: one message (descriptor 53,
// big_request, a message id, no data) and the sender id 0.
const REQUEST: &str = "0035 0001 0000 0000";

/// A server answer with data: descriptor 51 (big_server), 3 words of data ("ab", "cd", "ef"
/// byte-swapped as the game stores strings), then an ack (descriptor 1) of one word, then the
/// sender id 0 of the server.
const ANSWER: &str = "0033 0002 0003 6261 6463 6665  0001 0000 0001 0002  0000";

#[test]
fn browser_request_and_answer() {
    assert_eq!(
        classify(UDP, 4534, 40000, &[(true, &hex(REQUEST))]),
        Some("Armagetron")
    );
    assert_eq!(
        classify(UDP, 4535, 40001, &[(false, &hex(ANSWER))]),
        Some("Armagetron")
    );
}

#[test]
fn near_misses() {
    // A length running past the datagram.
    let v = hex("0035 0001 0001 0000");
    assert_eq!(run(&INSPECTOR, UDP, 4534, 4000, false, &v), Probe::NotForUs);
    // Descriptor 0 and descriptors past the table.
    let v = hex("0000 0001 0000 0000");
    assert_eq!(run(&INSPECTOR, UDP, 4534, 4000, false, &v), Probe::NotForUs);
    let v = hex("0fff 0001 0000 0000");
    assert_eq!(run(&INSPECTOR, UDP, 4534, 4000, false, &v), Probe::NotForUs);
    // One byte too many after the sender id.
    let v = hex("0035 0001 0000 0000 00");
    assert_eq!(run(&INSPECTOR, UDP, 4534, 4000, false, &v), Probe::NotForUs);
    // Off the game's ports the engine never asks (4533 and 4541 included).
    assert_eq!(classify(UDP, 4533, 40000, &[(true, &hex(REQUEST))]), None);
    assert_eq!(classify(UDP, 4541, 40000, &[(true, &hex(REQUEST))]), None);
    assert_eq!(classify(UDP, 5000, 40000, &[(true, &hex(REQUEST))]), None);
}
