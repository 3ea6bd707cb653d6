use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

#[test]
fn banners_and_media() {
    // nomachine.pcapng.out flow 1: TCP to 4000 (PLAIN TEXT NoMachine); the client's banner.
    assert_eq!(classify(TCP, 4000, 48084, &[(true, b"NXSH-8.4.2\n")]), Some("NoMachine"));
    assert_eq!(run(&INSPECTOR, TCP, 4000, 48084, true, b"NXD-8.4.2\r\n"), Probe::Certain(&LABEL));
    // Flow 2: UDP on 4000, 10-byte datagrams (52-byte frames): length 10 at offset 4.
    let m = hex("1234 0100 0a00 5678 0000");
    assert_eq!(classify(UDP, 4000, 56019, &[(true, &m)]), Some("NoMachine"));
    // The same datagram off port 4000 is not looked at.
    assert_eq!(run(&INSPECTOR, UDP, 4001, 56019, false, &m), Probe::NotForUs);
}

#[test]
fn near_misses() {
    let tcp: &[&[u8]] = &[b"NXSH-\n", b"NXSH-8.4 a\n", b"NXSH-x8\n", b"NXSH 8.4\n", b"NXD-8.4.2\nmore"];
    for c in tcp {
        assert_eq!(run(&INSPECTOR, TCP, 4000, 4001, false, c), Probe::NotForUs, "{c:?}");
    }
    for h in ["1234 0200 0a00 5678 0000", "1234 0100 0b00 5678 0000", "1234 0100 0a00 5678 0100"] {
        assert_eq!(run(&INSPECTOR, UDP, 4000, 4001, false, &hex(h)), Probe::NotForUs, "{h}");
    }
}
