use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// Built from the specification (no Megaco implementation is installable here): RFC 3525 Appendix
// A.1.1's first ServiceChange and its Reply (the MG's addresses changed to 192.0.2.1/2), in the
// long text form, and the same request in the compact form (Annex B.2's short tokens). Written
// into pcaps, tshark dissects them as `megaco`: "9998 Request |=NULL ServiceChange=ROOT",
// "9998 Reply |=NULL ServiceChange=ROOT", and "10 Request", mId "<mg1.example.net>:2944"; the
// request behind a TPKT header on tcp/2944 as `megaco` with TPKT length 199.
const SERVICE_CHANGE: &str =
    "4d454741434f2f31205b3139322e302e322e315d3a35353535350d0a5472616e73616374696f6e203d203939\
     3938207b0d0a2020436f6e74657874203d202d207b0d0a20202020536572766963654368616e6765203d2052\
     4f4f54207b5365727669636573207b0d0a2020202020204d6574686f643d526573746172742c0d0a20202020\
     2020536572766963654368616e6765416464726573733d35353535352c2050726f66696c653d52657347572f\
     317d0d0a202020207d0d0a20207d0d0a7d0d0a";
const REPLY: &str =
    "4d454741434f2f31205b3139322e302e322e325d3a35353535350d0a5265706c79203d2039393938207b0d0a\
     2020436f6e74657874203d202d207b536572766963654368616e6765203d20524f4f54207b0d0a2020202053\
     65727669636573207b536572766963654368616e6765416464726573733d35353535352c2050726f66696c65\
     3d52657347572f317d207d207d0d0a7d0d0a";
const COMPACT: &str =
    "212f31203c6d67312e6578616d706c652e6e65743e3a3239343420543d31307b433d2d7b53433d524f4f547b\
     53567b4d543d52532c41443d323934342c50463d52657347572f317d7d7d7d";

fn tpkt(msg: &[u8]) -> Vec<u8> {
    let mut v = vec![3, 0];
    v.extend(((msg.len() + 4) as u16).to_be_bytes());
    v.extend(msg);
    v
}

#[test]
fn spec_messages() {
    for m in [SERVICE_CHANGE, REPLY, COMPACT] {
        assert_eq!(run(&INSPECTOR, UDP, 2944, 2944, false, &hex(m)), Probe::Certain(&LABEL));
    }
    let sc = hex(SERVICE_CHANGE);
    assert_eq!(&tpkt(&sc)[..4], &hex("030000c7")[..]);
    assert_eq!(run(&INSPECTOR, TCP, 2944, 40000, false, &tpkt(&sc)), Probe::Certain(&LABEL));
    assert_eq!(classify(UDP, 2944, 2944, &[(true, &sc)]), Some("Megaco"));
    assert_eq!(classify(TCP, 2944, 40000, &[(true, &tpkt(&sc))]), Some("Megaco"));
    assert_eq!(classify(UDP, 12944, 2944, &[(true, &hex(COMPACT))]), Some("Megaco"));
}

#[test]
fn near_misses() {
    for bad in [
        &b"MEGACO/1[192.0.2.1]:55555 Transaction = 1 {}"[..], // no separator
        b"MEGACO/ [192.0.2.1] Transaction = 1 {}",           // no version
        b"MEGACO/1 192.0.2.1:55555 Transaction = 1 {}",      // mId without brackets
        b"MEGACO/1 [192.0.2.1:55555 Transaction = 1 {}",     // unclosed
        b"MEGACO/1 [192.0.2.1]:x Transaction = 1 {}",        // port not digits
        b"MEGACO/1 [192.0.2.1] Hello = 1 {}",                // unknown body
        b"MEGACO/1 [192.0.2.1] Transactions = 1 {}",         // not the token
        b"MGCP/1 [192.0.2.1] T=1{}",
        b"!/1 MTP{12} T=1{}",                                // MTP address too short
    ] {
        assert_eq!(run(&INSPECTOR, UDP, 2944, 2944, false, bad), Probe::NotForUs, "{bad:?}");
    }
    // A TPKT header whose length cannot hold a message.
    let mut short = tpkt(&hex(SERVICE_CHANGE));
    short[2] = 0;
    short[3] = 8;
    assert_eq!(run(&INSPECTOR, TCP, 2944, 40000, false, &short), Probe::NotForUs);
}
