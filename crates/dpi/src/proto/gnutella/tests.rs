use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// gnutella.pcap frame 752: the client's handshake (first bytes).
const CONNECT: &str = "474e5554454c4c4120434f4e4e4543542f302e360d0a4e6f64653a2039332e34372e3232362e35333a32383638310d0a";
// gnutella.pcap frame 1219: a vendor message (0x31) of 9 bytes, 32 in all.
const VMSG: &str = "62250a0400060fd600000000000000003101000900000047544b470900010000";
// gnutella.pcap frame 356: GTK-Gnutella "GND" framing.
const GND: &str = "474e44103e8f0101540b514b525006524e415d2fe2350970";

#[test]
fn corpus_vectors() {
    assert_eq!(
        classify(TCP, 53258, 50284, &[(true, &hex(CONNECT))]),
        Some("Gnutella")
    );
    assert_eq!(classify(UDP, 52367, 28681, &[(true, &hex(VMSG))]), Some("Gnutella"));
    assert_eq!(classify(UDP, 6346, 28681, &[(true, &hex(GND))]), Some("Gnutella"));
}

#[test]
fn length_must_match() {
    let mut v = hex(VMSG);
    v.push(0);
    assert_eq!(run(&INSPECTOR, UDP, 6346, 4000, false, &v), Probe::NotForUs);
    let mut g = hex(GND);
    g[6] = 3; // fragment 3 of 1
    assert_eq!(run(&INSPECTOR, UDP, 6346, 4000, false, &g), Probe::NotForUs);
    assert_eq!(
        run(&INSPECTOR, TCP, 6346, 4000, false, b"GET / HTTP/1.1\r\n\r\n"),
        Probe::NotForUs
    );
}
