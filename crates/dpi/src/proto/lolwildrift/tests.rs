use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

#[test]
fn corpus_vector() {
    // lol_wild_rift_udp.pcap frames 3 and 4: 69 and 359 bytes (first 16 of each kept,
    // zero-padded to the capture's sizes).
    let mut a = hex("040000002113e1d5fce112be33116bd1");
    a.resize(69, 0);
    let mut b = hex("100000002398297dcdb4b1653d8b84af");
    b.resize(359, 0);
    assert_eq!(classify(UDP, 15007, 43686, &[(true, &a), (false, &b)]), Some("LoLWildRift"));
    assert_eq!(run(&INSPECTOR, UDP, 15007, 43686, false, &a), Probe::Unsure);
    a.push(0);
    assert_eq!(run(&INSPECTOR, UDP, 15007, 43686, false, &a), Probe::NotForUs);
}
