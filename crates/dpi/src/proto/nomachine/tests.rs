use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

#[test]
fn banners_and_media() {
    // The handshake nDPI's dissector documents (src/lib/protocols/nomachine.c): the client's
    // NXSH-<version> and the server's NXD-<version>, before TLS; NoMachine's port 4000.
    assert_eq!(classify(TCP, 4000, 48084, &[(true, b"NXSH-8.4.2\n")]), Some("NoMachine"));
    assert_eq!(run(&INSPECTOR, TCP, 4000, 48084, true, b"NXD-8.4.2\r\n"), Probe::Certain(&LABEL));
    // The UDP media header as the module describes it, built for a 10-byte datagram.
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
