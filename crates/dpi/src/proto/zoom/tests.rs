use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// Built by hand from the SFU layout (module documentation) and zoom.pcap.out's facts (flow 15:
// client 61731 to 8801, named SRTP.Zoom on its fifth datagram; client datagrams of 13-109
// bytes). An opening from the client (type 1), the server's answer (type 2), and audio media
// (type 5, media type 15) carrying an RTP header (0x80, payload type 112).
const OPEN: &str = "010003 a1b2c3d4 00 0a0b0c0d0e0f";
const ANSWER: &str = "020003 a1b2c3d4 04 0a0b0c0d0e0f";
const AUDIO: &str = "05 0012 00000000 00 0f 0000000000000000 0012 00003e80 8070001200003e80 \
                     deadbeef 0102030405060708";

#[test]
fn opening_then_media_is_srtp() {
    let (open, answer, audio) = (hex(OPEN), hex(ANSWER), hex(AUDIO));
    assert!(is_open(&open) && is_open(&answer) && is_media(&audio));
    assert_eq!(classify(UDP, 8801, 61731, &[(true, &open)]), Some("Zoom"));
    let flow = [
        (true, &open[..]),
        (false, &answer[..]),
        (true, &open[..]),
        (false, &answer[..]),
        (true, &audio[..]),
    ];
    assert_eq!(classify(UDP, 8801, 61731, &flow), Some("SRTP"));
    // Media as the first datagram names the flow at once.
    assert_eq!(run(&INSPECTOR, UDP, 8801, 61731, false, &audio), Probe::Certain(&SRTP));
}

#[test]
fn media_comes_within_four_datagrams_or_not_at_all() {
    let (open, answer, audio) = (hex(OPEN), hex(ANSWER), hex(AUDIO));
    let late = [
        (true, &open[..]),
        (false, &answer[..]),
        (true, &open[..]),
        (false, &answer[..]),
        (true, &open[..]),
        (true, &audio[..]),
    ];
    // Found as Zoom, but media on the sixth datagram is past nDPI's look.
    assert_eq!(classify(UDP, 8801, 61731, &late), Some("Zoom"));
    assert_eq!(classify(UDP, 8801, 61731, &late[..5]), Some("Zoom"));
    let mut early = late;
    early[4] = (true, &audio[..]);
    assert_eq!(classify(UDP, 8801, 61731, &early[..5]), Some("SRTP"));
}

#[test]
fn near_misses() {
    let open = hex(OPEN);
    // Off Zoom's ports.
    assert_eq!(run(&INSPECTOR, UDP, 8811, 61731, false, &open), Probe::NotForUs);
    // Another second or third byte, or no room past the SFU header.
    let mut v = open.clone();
    v[1] = 1;
    assert_eq!(run(&INSPECTOR, UDP, 8801, 61731, false, &v), Probe::NotForUs);
    v = open.clone();
    v[2] = 4;
    assert_eq!(run(&INSPECTOR, UDP, 8801, 61731, false, &v), Probe::NotForUs);
    assert!(!is_open(&open[..8]));
    // Media too short for its audio header.
    let audio = hex(AUDIO);
    assert!(!is_media(&audio[..26]));
    assert!(is_media(&audio[..27]));
    // SFU types 3 and 4 wait for more.
    v = open.clone();
    v[0] = 3;
    assert_eq!(run(&INSPECTOR, UDP, 8801, 61731, false, &v), Probe::Unsure);
}
