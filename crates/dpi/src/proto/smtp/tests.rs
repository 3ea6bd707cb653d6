use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

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
