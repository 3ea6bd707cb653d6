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
