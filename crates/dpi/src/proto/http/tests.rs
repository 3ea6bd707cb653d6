use super::*;
use crate::tests::{probe, to_server, vector};
use crate::Hints;

/// 1kxun.pcap, frame 1150: a request; expected values from flows.csv (nDPI) and tshark.
#[test]
fn request_from_corpus() {
    let (r, m) = probe(&INSPECTOR, to_server(TCP, 80), &vector!("http_request"));
    assert_eq!(r, Probe::Certain(&LABEL));
    assert_eq!(m.get(Field::HttpMethod), Some("GET"));
    assert_eq!(m.get(Field::HttpHost), Some("mangaweb.1kxun.mobi"));
    assert_eq!(
        m.get(Field::UserAgent),
        Some("Mozilla/5.0 (Linux; Android 11; sdk_gphone_x86 Build/RSR1.201013.001; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/83.0.4103.106 Mobile Safari/537.36")
    );
    assert!(m
        .get(Field::Url)
        .unwrap()
        .starts_with("mangaweb.1kxun.mobi/detail?id=27159&sytjdt&_in_app=kankan"));
}

/// 1kxun.pcap, frame 1151: first segment of the answer (tshark: code 200 on the reassembled
/// response).
#[test]
fn response_from_corpus() {
    let h = Hints {
        dir: Dir::ToClient,
        ..to_server(TCP, 80)
    };
    let (r, m) = probe(&INSPECTOR, h, &vector!("http_response"));
    assert_eq!(r, Probe::Certain(&LABEL));
    assert_eq!(m.get(Field::HttpStatus), Some("200"));
}

#[test]
fn proxy_and_connect_and_not_http() {
    let h = to_server(TCP, 3128);
    let (r, _) = probe(&INSPECTOR, h, b"GET http://a.b/ HTTP/1.1\r\nHost: a.b\r\n\r\n");
    assert_eq!(r, Probe::Certain(&PROXY));
    let (r, _) = probe(&INSPECTOR, h, b"CONNECT a.b:443 HTTP/1.1\r\nHost: a.b\r\n\r\n");
    assert_eq!(r, Probe::Certain(&CONNECT));
    let (r, _) = probe(&INSPECTOR, h, b"GETTING STARTED\r\n");
    assert_eq!(r, Probe::NotForUs);
    let (r, _) = probe(&INSPECTOR, h, b"GE");
    assert_eq!(r, Probe::Unsure);
}

/// RFC 9113 §3.4: a client speaking HTTP/2 over cleartext TCP without an upgrade opens with
/// the 24-byte preface, then a SETTINGS frame (§6.5: length 0, type 4, flags 0, stream 0).
/// nDPI names such a flow HTTP2 (its http2.pcapng, port 29518). Cut short, it is not.
#[test]
fn h2c_preface_is_http2() {
    let mut first = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".to_vec();
    first.extend_from_slice(&[0, 0, 0, 4, 0, 0, 0, 0, 0]);
    assert_eq!(
        crate::proto::testkit::classify(TCP, 29518, 40000, &[(true, &first)]),
        Some("HTTP2")
    );
    assert_eq!(
        crate::proto::testkit::classify(TCP, 29518, 40000, &[(true, &first[..20])]),
        None
    );
}

/// http_starting_with_reply.pcapng: the capture starts inside a response (frames 1-3, status
/// 200 in frame 3); the client's next request (frame 5) carries the host tshark shows,
/// proxy.wiresharkfest.acropolis.local (the request is cut here to its request line and Host
/// header, the status to its head). The response still names the flow HTTP, and the later
/// request is read.
#[test]
fn a_request_after_a_response_is_still_read() {
    use crate::proto::testkit::classify_meta;
    let status = b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n";
    let get = b"GET /icons/ubuntu-logo.png HTTP/1.1\r\nHost: proxy.wiresharkfest.acropolis.local\r\n\r\n";
    let pkts = [(false, &status[..]), (true, &get[..])];
    let (label, host) = classify_meta(TCP, 80, 1044, &pkts, Some(Field::HttpHost));
    assert_eq!(label, Some("HTTP"));
    assert_eq!(host.as_deref(), Some("proxy.wiresharkfest.acropolis.local"));
    // As the capture has it: no SYN, so the response's sender (port 80) is taken for the
    // client, and the request comes from the "server".
    let pkts = [(true, &status[..]), (false, &get[..])];
    let (label, host) = classify_meta(TCP, 1044, 80, &pkts, Some(Field::HttpHost));
    assert_eq!(label, Some("HTTP"));
    assert_eq!(host.as_deref(), Some("proxy.wiresharkfest.acropolis.local"));
    let (_, code) = classify_meta(TCP, 1044, 80, &pkts, Some(Field::HttpStatus));
    assert_eq!(code.as_deref(), Some("200"));
}

/// HTTP/2 with prior knowledge where the server's preface comes first: nghttpd 1.52.0 (Debian
/// nghttp2-server) sends its SETTINGS frame on accept, before nghttp's connection preface
/// (scripts/netcap `netcap.py h2`; tshark 4.0.17: http2 SETTINGS, then the magic).
#[test]
fn http2_server_preface_first() {
    use crate::proto::testkit::{classify, hex};
    let settings = hex("000006040000000000000300000064");
    let client = hex(
        "505249202a20485454502f322e300d0a0d0a534d0d0a0d0a00000c04000000000000030000006400040000ffff",
    );
    let flow = [(false, &settings[..]), (true, &client[..])];
    assert_eq!(classify(crate::TCP, 8080, 33368, &flow), Some("HTTP2"));
    // A SETTINGS frame alone names nothing, and a frame of another type is not waited on.
    assert_eq!(classify(crate::TCP, 8080, 33368, &flow[..1]), None);
    let mut ping = settings.clone();
    ping[3] = 6;
    assert_eq!(
        crate::proto::testkit::probe(&INSPECTOR, crate::TCP, 8080, 33368, true, &ping),
        Probe::NotForUs
    );
}
