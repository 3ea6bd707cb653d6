use super::*;
use crate::proto::testkit::{classify, classify_meta, probe as run};

// FAX-Call-t38-CA-TDM-SIP-FB-1.pcap frame 164: an INVITE (headers cut; the User-Agent
// header kept as tshark shows it: "Arcor/Arcor-1.02.005t2").
const INVITE: &[u8] = b"INVITE sip:unavailable@138.132.169.101:5060;transport=udp SIP/2.0\r\n\
Allow: INVITE,ACK,OPTIONS,BYE,CANCEL,INFO,REFER,NOTIFY,UPDATE\r\n\
CSeq: 7 INVITE\r\n\
User-Agent: Arcor/Arcor-1.02.005t2\r\n\r\n";
// The same capture, frame 28: the answer's status line.
const TRYING: &[u8] = b"SIP/2.0 100 Trying\r\nVia: SIP/2.0/UDP 10.35.60.72:5060\r\n\r\n";

#[test]
fn corpus_vectors() {
    let (m, ua) = classify_meta(UDP, 5060, 5060, &[(true, INVITE)], Some(Field::UserAgent));
    assert_eq!(m, Some("SIP"));
    assert_eq!(ua.as_deref(), Some("Arcor/Arcor-1.02.005t2"));
    assert_eq!(classify(UDP, 5060, 5060, &[(false, TRYING)]), Some("SIP"));
}

#[test]
fn http_and_rtsp_are_not_sip() {
    let http = b"OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n";
    assert_eq!(run(&INSPECTOR, UDP, 5060, 4000, false, http), Probe::NotForUs);
    let bad = b"INVITE sip:a@b SIP/3.0\r\n\r\n";
    assert_eq!(run(&INSPECTOR, TCP, 5060, 4000, false, bad), Probe::NotForUs);
}
