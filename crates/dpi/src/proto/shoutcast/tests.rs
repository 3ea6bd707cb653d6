use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// Captured in network namespaces: ezstream 1.0.2 (libshout 2.4.6) with <protocol>ICY, feeding
// icecast2 2.4.4's SHOUTcast-compatible socket (listen socket 8001 with shoutcast-compat, so
// libshout connects to 8002). tshark shows both as plain TCP data.
/// The source's password and icy headers (`hackme\nicy-name:h3 test\nicy-url:...\n\n`).
const SOURCE: &str = "6861636b6d650a6963792d6e616d653a683320746573740a6963792d75726c3a687474703a2f2f77\
    77772e696365636173742e6f72672f0a6963792d6972633a0a6963792d61696d3a0a6963792d6963713a0a6963\
    792d7075623a300a6963792d67656e72653a696365636173740a6963792d62723a300a0a";
/// icecast2's answer: `OK2\r\nicy-caps:11\r\n\r\n`.
const OK2_CAPS: &str = "4f4b320d0a6963792d636170733a31310d0a0d0a";
/// libshout's "server poke" before it connects for real (`!POKE\nicy-name:libshout server poke
/// request\n\n`): one icy header, then the empty line that ends the request. Unnamed, the flow
/// took the statistical model's guess (TLS, in the held-out set's `icecast-icy` variants).
const POKE: &str = "21504f4b450a6963792d6e616d653a6c696273686f75742073657276657220706f6b652072657175\
    6573740a0a";

#[test]
fn ezstream_icy_vectors() {
    let (src, ok) = (hex(SOURCE), hex(OK2_CAPS));
    assert_eq!(run(&INSPECTOR, TCP, 8002, 53866, false, &src), Probe::Certain(&LABEL));
    assert_eq!(run(&INSPECTOR, TCP, 8002, 53866, true, &ok), Probe::Certain(&LABEL));
    assert_eq!(classify(TCP, 8002, 53866, &[(true, &src)]), Some("ShoutCast"));
    assert_eq!(classify(TCP, 8001, 53866, &[(false, &ok)]), Some("ShoutCast"));
    let poke = hex(POKE);
    assert_eq!(run(&INSPECTOR, TCP, 8002, 53866, false, &poke), Probe::Certain(&LABEL));
    assert_eq!(classify(TCP, 42001, 53866, &[(true, &poke)]), Some("ShoutCast"));
}

#[test]
fn near_misses() {
    let no = |v: &[u8]| run(&INSPECTOR, TCP, 8002, 53866, false, v) == Probe::NotForUs;
    assert!(no(b"!POKE\nicy-name:x\n")); // one header, the request not ended
    assert!(no(b"!POKE\nicy-name:x")); // nor that header
    assert!(no(b"!POKE\n\n")); // no header
    assert!(no(b"!POKE\nicy-name:\n\n")); // one header without a value
    assert!(no(b"GET / HTTP/1.0\nicy-metadata:1\nHost: a\n\n")); // one icy header among others
    assert!(no(b"hackme\nicy-name:x\nX-Other: y\nicy-pub:0\n\n")); // a non-icy header
    assert!(no(b"\nicy-name:x\nicy-pub:0\n\n")); // empty password line
    assert!(no(b"hackme\nicy-name:x\nicy-pub:0")); // the second header not ended
    assert!(no(b"hackme\nicy-Name:x\nicy-pub:0\n\n"));
    assert!(no(b"OK2\r\nicy-caps:\r\n\r\n"));
    assert!(no(b"OK2\r\nicy-caps:11"));
    assert!(no(b"OK\r\nicy-caps:11\r\n"));
}
