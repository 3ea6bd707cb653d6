use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

#[test]
fn corpus_vector() {
    // gtp_c.pcap frame 1: GTPv2-C Create Session Request (type 32), length 0xf3 (247 - 4);
    // the first 24 bytes kept and zero-padded to the capture's size.
    let mut v = hex("482000f3000000004b5462000100080089674511223344f5");
    v.resize(247, 0);
    assert_eq!(classify(UDP, 2123, 1024, &[(true, &v)]), Some("GTP"));
}

#[test]
fn look_alike() {
    // gtp_false_positive.pcapng frame 7 (first 16 bytes): "version 2" but a length of 2.
    let v = hex("4601000002790300c800c58bbda67337");
    assert_eq!(run(&INSPECTOR, UDP, 50140, 2123, true, &v), Probe::NotForUs);
}

#[test]
fn gtp_prime_data_record_transfer() {
    // gtp_prime.pcapng, 10.10.54.1:64580 -> 10.10.39.10:3386 (nDPI: GTP.GTP_PRIME): flags 0x2e
    // (version 1, GTP', spare 111, short header), type 240 (data record transfer request),
    // length 0xf4: 250 bytes in all (the first 20 kept, the rest zero-filled).
    let mut d = hex("2ef000f400047e01fc00ef01011c0600e9bf6082");
    d.resize(250, 0);
    assert_eq!(run(&INSPECTOR, UDP, 3386, 64580, false, &d), Probe::Certain(&PRIME));
    let mut short = d.clone();
    short.pop();
    assert_eq!(run(&INSPECTOR, UDP, 3386, 64580, false, &short), Probe::NotForUs);
    let mut ty = d.clone();
    ty[1] = 200;
    assert_eq!(run(&INSPECTOR, UDP, 3386, 64580, false, &ty), Probe::NotForUs);
}
