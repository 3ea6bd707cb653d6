use super::*;
use crate::proto::testkit::{classify, classify_meta, hex, probe as run};
use crate::Field;

#[test]
fn corpus_vector() {
    // socks.pcap frames 47 and 49: greeting offering no-auth and user/password, server picks 0.
    let (g, r) = (hex("05020001"), hex("0500"));
    assert_eq!(classify(TCP, 1080, 53535, &[(true, &g), (false, &r)]), Some("SOCKS"));
}

#[test]
fn greeting_alone_and_bad_counts() {
    assert_eq!(run(&INSPECTOR, TCP, 1080, 4000, false, &hex("05020001")), Probe::Unsure);
    assert_eq!(run(&INSPECTOR, TCP, 1080, 4000, false, &hex("050500")), Probe::NotForUs);
}

/// socks.pcap, flow 10.180.156.185:53533 -> 1080: a SOCKS 4 CONNECT (frame 18), the proxy's
/// grant (frame 20), then curl's request through the tunnel (frame 22). tshark's http.host is
/// www.example.com; nDPI names the flow SOCKS.
#[test]
fn http_through_socks4() {
    let req = hex("040100505db8d87700");
    let grant = hex("005adfb20ab49cf9");
    let get = hex(
        "474554202f20485454502f312e310d0a557365722d4167656e743a206375726c2f372e32342e3020287838\
         365f36342d6170706c652d64617277696e31322e3029206c69626375726c2f372e32342e30204f70656e53\
         534c2f302e392e3879207a6c69622f312e322e350d0a486f73743a207777772e6578616d706c652e636f6d\
         0d0a4163636570743a202a2f2a0d0a0d0a",
    );
    let pkts = [(true, &req[..]), (false, &grant[..]), (true, &get[..])];
    let (label, host) = classify_meta(TCP, 1080, 53533, &pkts, Some(Field::HttpHost));
    assert_eq!(label, Some("SOCKS"));
    assert_eq!(host.as_deref(), Some("www.example.com"));
    let (_, ua) = classify_meta(TCP, 1080, 53533, &pkts, Some(Field::UserAgent));
    assert!(ua.is_some_and(|u| u.starts_with("curl/7.24.0")));
}

/// tls_heur__vmess-tcp.pcapng, flow 127.0.0.1:37218 -> 1080: a SOCKS 5 greeting (frame 4), the
/// proxy's choice (6), a CONNECT by IPv6 address (12) and its reply (13). The tunnelled
/// ClientHello there (frame 18, SNI www.youtube.com) is long; the one tunnelled here is
/// tls_1.3_unidirectional_client.pcapng's (tshark: SNI www.google.com), whole, then cut.
#[test]
fn tls_through_socks5() {
    let greet = hex("05020001");
    let choice = hex("0500");
    let connect = hex("050100042a0014504006080d000000000000200e01bb");
    let reply = hex("050000017f0000010438");
    let hello = crate::tests::vector!("tls_client_hello");
    let mut pkts = vec![
        (true, &greet[..]),
        (false, &choice[..]),
        (true, &connect[..]),
        (false, &reply[..]),
        (true, &hello[..]),
    ];
    let (label, sni) = classify_meta(TCP, 1080, 37218, &pkts, Some(Field::Sni));
    assert_eq!(label, Some("SOCKS"));
    assert_eq!(sni.as_deref(), Some("www.google.com"));
    // The hello in two segments: reassembled.
    let (a, b) = hello.split_at(100);
    pkts.pop();
    pkts.extend([(true, a), (true, b)]);
    let (label, sni) = classify_meta(TCP, 1080, 37218, &pkts, Some(Field::Sni));
    assert_eq!(label, Some("SOCKS"));
    assert_eq!(sni.as_deref(), Some("www.google.com"));
}

/// Anything else through the tunnel ends the reading, and the flow stays SOCKS.
#[test]
fn other_tunnelled_bytes() {
    let (req, grant) = (hex("040100505db8d87700"), hex("005adfb20ab49cf9"));
    let ssh = b"SSH-2.0-OpenSSH_9.6\r\n".to_vec();
    let pkts = [(true, &req[..]), (false, &grant[..]), (true, &ssh[..])];
    let (label, host) = classify_meta(TCP, 1080, 53533, &pkts, Some(Field::HttpHost));
    assert_eq!(label, Some("SOCKS"));
    assert_eq!(host, None);
}
