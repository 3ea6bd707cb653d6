use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// Made here: Debian inn2 2.7.1-1+deb12u1's reader daemon (`nnrpd -D -b 192.0.2.2 -p 119`) and
// Python 3.11's `nntplib` client (CAPABILITIES, LIST, QUIT) from 192.0.2.1 in network
// namespaces, captured with tcpdump; tshark dissects the flow as `nntp`. Frame 16, the greeting
// "200 news.example.org InterNetNews NNRP server INN 2.7.1 ready (posting ok)\r\n".
const GREETING: &str = "323030206e6577732e6578616d706c652e6f726720496e7465724e65744e657773204e4e\
    52502073657276657220494e4e20322e372e312072656164792028706f7374696e67206f6b290d0a";
// Frame 18, the client's "CAPABILITIES\r\n"; frame 24, "LIST\r\n".
const CAPABILITIES: &str = "4341504142494c49544945530d0a";
const LIST: &str = "4c4953540d0a";

#[test]
fn captured_greeting_and_command() {
    let g = hex(GREETING);
    assert_eq!(run(&INSPECTOR, TCP, 119, 59116, true, &g), Probe::Certain(&LABEL));
    // Off the port, its text ("news", "NNRP") names it.
    assert_eq!(run(&INSPECTOR, TCP, 8119, 59116, true, &g), Probe::Certain(&LABEL));
    let c = hex(CAPABILITIES);
    assert_eq!(run(&INSPECTOR, TCP, 8119, 59116, false, &c), Probe::Certain(&LABEL));
    assert_eq!(classify(TCP, 119, 59116, &[(false, &g), (true, &c)]), Some("Usenet"));
    assert_eq!(classify(TCP, 8119, 59116, &[(false, &g), (true, &c)]), Some("Usenet"));
}

#[test]
fn plain_greeting_needs_port_or_command() {
    // RFC 3977 §5.1.1's example greeting texts carry no news word.
    let g = b"200 Reader mode, posting permitted\r\n";
    assert_eq!(run(&INSPECTOR, TCP, 119, 4000, true, g), Probe::Certain(&LABEL));
    assert_eq!(run(&INSPECTOR, TCP, 7000, 4000, true, g), Probe::Unsure);
    let pkts: [(bool, &[u8]); 2] = [(false, g), (true, b"MODE READER\r\n")];
    assert_eq!(classify(TCP, 7000, 4000, &pkts), Some("Usenet"));
}

#[test]
fn near_misses() {
    for bad in [
        &b"220 news.example.org ESMTP\r\n"[..], // another code (SMTP's)
        b"200 news.example.org ready",          // no CRLF
        b"200 news\r\n200 again\r\n",           // two lines
        b"200\r\n",                             // no text
        b"200 news\x01\r\n",                    // control byte
    ] {
        assert_eq!(run(&INSPECTOR, TCP, 119, 4000, true, bad), Probe::NotForUs, "{bad:?}");
    }
    let mut long = b"200 news ".to_vec();
    long.extend(std::iter::repeat_n(b'x', 520));
    long.extend(b"\r\n");
    assert_eq!(run(&INSPECTOR, TCP, 119, 4000, true, &long), Probe::NotForUs);
    for bad in [&hex(LIST)[..], b"CAPABILITIES x\r\n", b"MODE READER", b"USER anonymous\r\n"] {
        assert_eq!(run(&INSPECTOR, TCP, 119, 4000, false, bad), Probe::NotForUs, "{bad:?}");
    }
}
