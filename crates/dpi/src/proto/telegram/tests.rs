use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// telegram.pcap frame 737: peer tag, twelve 0xff, then the request.
const REQ: &str = "2fe49fa76c4eb433cbcd82a1bbea621efffffffffffffffffffffffffeffffff8bad35d6e816180a";

#[test]
fn corpus_vector() {
    assert_eq!(classify(UDP, 533, 28150, &[(true, &hex(REQ))]), Some("Telegram"));
}

#[test]
fn needs_the_ff_run() {
    let mut v = hex(REQ);
    v[20] = 0;
    assert_eq!(run(&INSPECTOR, UDP, 533, 4000, false, &v), Probe::NotForUs);
    assert_eq!(run(&INSPECTOR, UDP, 533, 4000, false, &[0xff; 40]), Probe::NotForUs);
    // skinny.pcap, flow 32144 -> 17718: RTP (PCMU silence), 0xff from byte 12 on.
    let rtp = hex("8080059c0002e0c0f6bf57dcffffffffffffffffffffffffffffffffffffffffffffffffffff");
    assert_eq!(run(&INSPECTOR, UDP, 17718, 32144, false, &rtp), Probe::NotForUs);
}

/// MTProto's abridged transport over TCP (nDPI's telegram.c rule; the corpus has no such
/// segment): `ef`, then the first message's length in 4-byte words.
#[test]
fn abridged_tcp() {
    let mut seg = hex("ef10");
    seg.resize(66, 0x42);
    assert_eq!(classify(TCP, 443, 40000, &[(true, &seg)]), Some("Telegram"));
    assert_eq!(classify(TCP, 80, 40000, &[(true, &seg)]), Some("Telegram"));
    // Extended length marker.
    let mut ext = seg.clone();
    ext[1] = 0x7f;
    assert_eq!(run(&INSPECTOR, TCP, 25, 4000, false, &ext), Probe::Certain(&LABEL));
    // A length of more words than the segment holds (0x10 words = 64 bytes: 65 bytes needed).
    assert_eq!(run(&INSPECTOR, TCP, 443, 4000, false, &seg[..64]), Probe::NotForUs);
    assert_eq!(run(&INSPECTOR, TCP, 443, 4000, false, &seg[..65]), Probe::Certain(&LABEL));
    // Other ports, the server's side, short segments, another first byte.
    assert_eq!(run(&INSPECTOR, TCP, 8443, 4000, false, &seg), Probe::NotForUs);
    assert_eq!(run(&INSPECTOR, TCP, 443, 4000, true, &seg), Probe::NotForUs);
    assert_eq!(run(&INSPECTOR, TCP, 443, 4000, false, &seg[..56]), Probe::NotForUs);
    let mut tls = seg;
    tls[0] = 0x16;
    assert_eq!(run(&INSPECTOR, TCP, 443, 4000, false, &tls), Probe::NotForUs);
}
