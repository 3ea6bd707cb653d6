use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// ftp.pcap frames 4 and 6: "220 (vsFTPd 3.0.3)" and "USER anonymous".
const GREETING: &str = "323230202876734654506420332e302e33290d0a";
const USER: &str = "5553455220616e6f6e796d6f75730d0a";

#[test]
fn corpus_vectors() {
    let (g, u) = (hex(GREETING), hex(USER));
    assert_eq!(classify(TCP, 21, 50694, &[(false, &g), (true, &u)]), Some("FTP_CONTROL"));
    assert_eq!(run(&INSPECTOR, TCP, 21, 50694, true, &g), Probe::Unsure);
    // ftp-start-tls.pcap: a greeting naming nothing, then "AUTH TLS": nDPI's FTPS.
    let banner = b"220 \"Authorized users only.\"\r\n";
    assert_eq!(
        classify(TCP, 21, 62092, &[(false, banner), (true, b"AUTH TLS\r\n")]),
        Some("FTPS")
    );
}

#[test]
fn others_refused() {
    assert_eq!(run(&INSPECTOR, TCP, 110, 4000, false, &hex(USER)), Probe::NotForUs);
    // irc.pcap frame 4: IRC's USER has four arguments.
    let irc = b"USER xxxxx +iw xxxxx :Xxxxxx Xxxx\r\n";
    assert_eq!(run(&INSPECTOR, TCP, 8000, 4000, false, irc), Probe::NotForUs);
    assert_eq!(run(&INSPECTOR, TCP, 21, 4000, true, b"220 x ESMTP\r\n"), Probe::NotForUs);
}
