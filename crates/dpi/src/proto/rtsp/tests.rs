use super::*;
use crate::proto::testkit::{classify_meta, hex, probe as run};

// rtsp.pcap frame 25 (first 86 bytes): OPTIONS with the VLC user agent.
const OPTIONS: &str = "4f5054494f4e5320727473703a2f2f31302e322e322e323a383535342f20525453502f312e300d0a435365713a20320d0a557365722d4167656e743a204c6962564c432f332e302e31360d0a";

#[test]
fn corpus_vector() {
    let (m, ua) =
        classify_meta(TCP, 8554, 52472, &[(true, &hex(OPTIONS))], Some(Field::UserAgent));
    assert_eq!(m, Some("RTSP"));
    assert_eq!(ua.as_deref(), Some("LibVLC/3.0.16"));
}

#[test]
fn http_is_not_rtsp() {
    assert_eq!(
        run(&INSPECTOR, TCP, 80, 4000, false, b"OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n"),
        Probe::NotForUs
    );
}
