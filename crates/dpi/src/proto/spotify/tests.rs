use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// android.pcap frame 27: LAN discovery broadcast.
const DISCO: &str = "53706f7455647030dc1574282e52624c000100044895c203a241de2089b978d820564bd50c91c0e8a3e60a78";

#[test]
fn corpus_vectors() {
    assert_eq!(classify(UDP, 57621, 57621, &[(true, &hex(DISCO))]), Some("Spotify"));
    // spotify_tcp.pcap frame 4: the client hello, length 0x149 (329), cut to 24 bytes and
    // padded back to its declared length with zeros.
    let mut v = hex("000400000149520f5002a00100f00106c002b9f6909d03a0");
    v.resize(329, 0);
    assert_eq!(classify(TCP, 4070, 48628, &[(true, &v)]), Some("Spotify"));
}

#[test]
fn look_alikes() {
    assert_eq!(run(&INSPECTOR, UDP, 57621, 57621, false, b"SpotUdp"), Probe::NotForUs);
    let mut v = hex("000400000149520f5002a00100f00106c002b9f6909d03a0");
    v.resize(300, 0);
    assert_eq!(run(&INSPECTOR, TCP, 4070, 4000, false, &v), Probe::NotForUs);
}
