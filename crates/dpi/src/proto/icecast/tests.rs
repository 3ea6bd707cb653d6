use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// Captured in network namespaces: ezstream 1.0.2 (libshout 2.4.6, Debian) streaming to
// icecast2 2.4.4 on 198.51.100.2:8000, the authenticated SOURCE request (its first payload
// packet; tshark shows it as TCP data, having no dissector for SOURCE).
const SOURCE: &str = "534f55524345202f68332e6d703320485454502f312e300d0a417574686f72697a6174696f6e3a20\
    42617369632063323931636d4e6c4f6d6868593274745a513d3d0d0a486f73743a203139382e35312e3130302e\
    323a383030300d0a557365722d4167656e743a206c696273686f75742f322e342e360d0a436f6e74656e742d54\
    7970653a20617564696f2f6d7065670d0a6963652d7075626c69633a20300d0a6963652d6e616d653a20683320\
    746573740d0a5072656665723a2072657475726e3d6d696e696d616c0d0a0d0a";

#[test]
fn ezstream_vector() {
    let v = hex(SOURCE);
    assert_eq!(run(&INSPECTOR, TCP, 8000, 40386, false, &v), Probe::Certain(&LABEL));
    assert_eq!(classify(TCP, 8000, 40386, &[(true, &v)]), Some("IceCast"));
    assert_eq!(classify(TCP, 9100, 40386, &[(true, &v)]), Some("IceCast"));
}

#[test]
fn near_misses() {
    let no = |v: &[u8]| run(&INSPECTOR, TCP, 8000, 40386, false, v) == Probe::NotForUs;
    assert!(no(b"SOURCE /h3.mp3 HTTP/2.0\r\n"));
    assert!(no(b"SOURCE h3.mp3 HTTP/1.0\r\n"));
    assert!(no(b"SOURCE /h3.mp3 HTTP/1.0")); // no CRLF yet
    assert!(no(b"SOURCE /h3\x01.mp3 HTTP/1.0\r\n"));
    assert!(no(b"source /h3.mp3 HTTP/1.0\r\n"));
    assert!(no(b"GET /h3.mp3 HTTP/1.0\r\n"));
    // An ICE/1.0 source (older libshout), built from the same request line syntax.
    assert_eq!(
        run(&INSPECTOR, TCP, 8000, 40386, false, b"SOURCE /live ICE/1.0\r\n"),
        Probe::Certain(&LABEL)
    );
}
