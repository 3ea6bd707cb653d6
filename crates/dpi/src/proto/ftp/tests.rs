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

/// Lines of the control connection that announce data connections, from the capture that
/// scripts/netcap (`netcap.py ftp`) makes with pyftpdlib 1.5.7 and Python's ftplib (tshark
/// 4.0.17 dissects each as ftp: 227, 229, PORT, EPRT).
#[test]
fn data_connections_announced() {
    let mut seen = Vec::new();
    let reply = b"227 Entering passive mode (192,0,2,2,195,135).\r\n";
    announcements(reply, false, |a| seen.push(a));
    let epsv = b"229 Entering extended passive mode (|||50016|).\r\n";
    announcements(epsv, false, |a| seen.push(a));
    announcements(b"PORT 192,0,2,1,142,47\r\n", true, |a| seen.push(a));
    announcements(b"EPRT |1|192.0.2.1|34319|\r\n", true, |a| seen.push(a));
    let v4 = |d| IpAddr::V4(Ipv4Addr::new(192, 0, 2, d));
    assert_eq!(
        seen,
        [
            Announce::Passive(Some(v4(2)), 50055),
            Announce::Passive(None, 50016),
            Announce::Active(v4(1), 36399),
            Announce::Active(v4(1), 34319),
        ]
    );
    // RFC 2428's IPv6 example.
    let mut v6 = Vec::new();
    announcements(b"EPRT |2|1080::8:800:200C:417A|5282|\r\n", true, |a| v6.push(a));
    assert_eq!(
        v6,
        [Announce::Active("1080::8:800:200C:417A".parse().unwrap(), 5282)]
    );
    // Not announcements: the other side's words, bad numbers, a line without its end.
    let mut none = Vec::new();
    for (l, c) in [
        (&b"227 Entering passive mode (192,0,2,2,195,135).\r\n"[..], true),
        (b"PORT 192,0,2,1,142,47\r\n", false),
        (b"PORT 192,0,2,1,300,47\r\n", true),
        (b"PORT 192,0,2,1,0,0\r\n", true),
        (b"PORT 192,0,2,1\r\n", true),
        (b"EPRT |3|192.0.2.1|34319|\r\n", true),
        (b"229 Entering extended passive mode (|||70000|).\r\n", false),
        (b"227 Entering passive mode (192,0,2,2,195,135).", false),
    ] {
        announcements(l, c, |a| none.push(a));
    }
    assert_eq!(none, []);
}
