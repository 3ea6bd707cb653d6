use super::*;
use crate::proto::testkit::{classify, probe as run};

#[test]
fn greetings_of_the_corpus() {
    // ookla.pcap, flow 192.168.1.192:37790 -> 185.157.229.246:8080: the client's first segment
    // (40 bytes) and the server's answer (42 bytes).
    let hi: &[u8] = b"HI 8e17cb65-c6b5-4b39-adcc-97006a1e4537\n";
    assert_eq!(hi.len(), 40);
    assert_eq!(classify(TCP, 8080, 37790, &[(true, hi)]), Some("Ookla"));
    let hello: &[u8] = b"HELLO 2.9 (2.9.2) 2021-11-30.2159.ffae0e0\n";
    assert_eq!(hello.len(), 42);
    assert_eq!(classify(TCP, 8080, 37790, &[(false, hello)]), Some("Ookla"));
    // ookla.pcap, flow 192.168.1.7:51215: a bare "HI\n" (3 bytes).
    assert_eq!(classify(TCP, 8080, 51215, &[(true, b"HI\n")]), Some("Ookla"));
}

#[test]
fn near_misses() {
    for d in [
        &b"HI"[..],             // no line end
        b"HIGH\n",              // another word
        b"HI \n",               // empty token
        b"GET / HTTP/1.1\r\n",  // HTTP on the same port
        b"HELLO world\n",       // no version
    ] {
        assert_eq!(run(&INSPECTOR, TCP, 8080, 40000, false, d), Probe::NotForUs, "{d:?}");
        assert_eq!(run(&INSPECTOR, TCP, 8080, 40000, true, d), Probe::NotForUs, "{d:?}");
    }
    // The greeting off port 8080 is not claimed (ports_required), nor by the probe itself.
    assert_eq!(run(&INSPECTOR, TCP, 8081, 40000, false, b"HI\n"), Probe::NotForUs);
    assert_eq!(classify(TCP, 8081, 40000, &[(true, b"HI\n")]), None);
}
