use super::*;
use crate::proto::testkit::{classify, classify_meta, hex, probe as run};
use crate::Field;

// emotet.pcap frames 4 and 5: greeting and EHLO.
const GREETING: &str = "323230206f706d7461316d746f30326e643120736d74702e6f72616e67652e66722045534d5450207365727665722072656164790d0a";
const EHLO: &str = "45484c4f205b3137332e36362e34362e39375d0d0a";

#[test]
fn corpus_vectors() {
    assert_eq!(classify(TCP, 587, 57309, &[(false, &hex(GREETING))]), Some("SMTP"));
    assert_eq!(
        classify(TCP, 587, 57309, &[(false, b"220 mail ready\r\n"), (true, &hex(EHLO))]),
        Some("SMTP")
    );
}

#[test]
fn ftp_greeting_is_not_smtp() {
    // ftp.pcap frame 4: "220 (vsFTPd 3.0.3)".
    let ftp = hex("323230202876734654506420332e302e33290d0a");
    assert_eq!(run(&INSPECTOR, TCP, 21, 4000, true, &ftp), Probe::NotForUs);
    assert_eq!(run(&INSPECTOR, TCP, 25, 4000, false, b"GET / HTTP/1.0\r\n"), Probe::NotForUs);
}

// smtp.pcap frames 11 and 13 (tshark: smtp.req.parameter "From:<coreys@delta.peach.mil>" and
// "To:<camronm@pigeon.eyrie.af.mil>").
const MAIL: &str = "4d41494c2046726f6d3a3c636f726579734064656c74612e70656163682e6d696c3e0d0a";
const RCPT: &str =
    "5243505420546f3a3c63616d726f6e6d40706967656f6e2e65797269652e61662e6d696c3e0d0a";

#[test]
fn envelope_addresses() {
    let (mail, rcpt) = (hex(MAIL), hex(RCPT));
    let flow: &[(bool, &[u8])] = &[
        (false, &hex(GREETING)),
        (true, &hex(EHLO)),
        (false, b"250 ok\r\n"),
        (true, &mail),
        (false, b"250 ok\r\n"),
        (true, &rcpt),
    ];
    for (f, want) in [
        (Field::SmtpFrom, "coreys@delta.peach.mil"),
        (Field::SmtpRcpt, "camronm@pigeon.eyrie.af.mil"),
    ] {
        let (l, v) = classify_meta(TCP, 25, 2127, flow, Some(f));
        assert_eq!(l, Some("SMTP"));
        assert_eq!(v.as_deref(), Some(want));
    }
    // Pipelined (RFC 2920) in one segment; the null sender gives no value.
    let piped = b"MAIL FROM:<> SIZE=10\r\nRCPT TO: <a@b.c> NOTIFY=NEVER\r\nDATA\r\n";
    let flow: &[(bool, &[u8])] = &[(true, &hex(EHLO)), (true, piped)];
    let (_, v) = classify_meta(TCP, 25, 2127, flow, Some(Field::SmtpRcpt));
    assert_eq!(v.as_deref(), Some("a@b.c"));
    let (_, v) = classify_meta(TCP, 25, 2127, flow, Some(Field::SmtpFrom));
    assert_eq!(v, None);
    // After STARTTLS nothing more is read.
    let flow: &[(bool, &[u8])] = &[(true, &hex(EHLO)), (true, b"STARTTLS\r\n"), (true, &rcpt)];
    let (_, v) = classify_meta(TCP, 25, 2127, flow, Some(Field::SmtpRcpt));
    assert_eq!(v, None);
    assert_eq!(address(b" bare@host SIZE=1"), b"bare@host");
    assert_eq!(address(b"<unclosed"), b"unclosed");
}

/// RFC 3207 §4: the client's `STARTTLS`, the server's `220`, then the TLS handshake: nDPI names
/// the session SMTPS (its smtp-starttls.pcap, port 25). A refused `STARTTLS` (454) stays SMTP.
#[test]
fn starttls_accepted_is_smtps() {
    let hello: &[u8] = b"220 mx.example.com ESMTP ready\r\n";
    let ehlo: &[u8] = b"EHLO client.example.org\r\n";
    let caps: &[u8] = b"250-mx.example.com\r\n250 STARTTLS\r\n";
    let start: &[u8] = b"STARTTLS\r\n";
    let flow = |answer: &'static [u8]| {
        classify(
            TCP,
            25,
            40000,
            &[(false, hello), (true, ehlo), (false, caps), (true, start), (false, answer)],
        )
    };
    assert_eq!(flow(b"220 2.0.0 Ready to start TLS\r\n"), Some("SMTPS"));
    assert_eq!(flow(b"454 4.7.0 TLS not available\r\n"), Some("SMTP"));
}
