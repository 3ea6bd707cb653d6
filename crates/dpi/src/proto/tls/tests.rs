use super::*;
use crate::tests::{probe, to_server, vector};

/// tls_1.3_unidirectional_client.pcapng, frame 3. tshark: SNI www.google.com, ALPN http/1.1,
/// JA3 c67e9dc27d283f1f89b4ebb4b4670c21 (also nDPI's ja3c). nDPI's JA4 is
/// t13d1713ht_5b57614c22b0_352634941f3a: the two hashes must agree; the ALPN part follows the
/// JA4 specification (first and last character of "http/1.1": "h1"), where nDPI 4.11 writes the
/// first two.
#[test]
fn client_hello_from_corpus() {
    let (r, m) = probe(&INSPECTOR, to_server(TCP, 443), &vector!("tls_client_hello"));
    assert_eq!(r, Probe::Certain(&LABEL));
    assert_eq!(m.get(Field::Sni), Some("www.google.com"));
    assert_eq!(m.get(Field::Alpn), Some("http/1.1"));
    assert_eq!(m.get(Field::Ja3c), Some("c67e9dc27d283f1f89b4ebb4b4670c21"));
    assert_eq!(
        m.get(Field::Ja4),
        Some("t13d1713h1_5b57614c22b0_352634941f3a")
    );
    assert_eq!(m.get(Field::TlsVersion), Some("TLSv1.3"));
}

#[test]
fn grease_values() {
    for g in [0x0a0au16, 0x1a1a, 0xfafa] {
        assert!(grease(g));
    }
    for v in [0x0a1au16, 0x1301, 0x0000] {
        assert!(!grease(v));
    }
}

#[test]
fn a_cut_hello_asks_for_more_and_other_bytes_are_not_tls() {
    let v = vector!("tls_client_hello");
    let (r, m) = probe(&INSPECTOR, to_server(TCP, 443), &v[..60]);
    assert_eq!(r, Probe::Certain(&LABEL));
    assert!(m.get(Field::Sni).is_none());
    let (r, _) = probe(&INSPECTOR, to_server(TCP, 443), b"GET / HTTP/1.1\r\n\r\n");
    assert_eq!(r, Probe::NotForUs);
}

/// haproxy.pcap, frame 1: a PROXY protocol v1 line from a load balancer, then the ClientHello in
/// the same segment; tshark's SNI is aaaaaaaaaaaaaaaa.xx, and nDPI's flows.csv names the flow
/// HAProxy.
#[test]
fn client_hello_after_proxy_v1_line() {
    let v = vector!("tls_after_proxy_v1");
    assert!(v.starts_with(b"PROXY TCP4 "));
    let (r, m) = probe(&INSPECTOR, to_server(TCP, 443), &v);
    assert_eq!(r, Probe::Certain(&HAPROXY));
    // The ClientHello alone is TLS.
    let hello = after_proxy_header(&v).unwrap();
    assert_eq!(probe(&INSPECTOR, to_server(TCP, 443), hello).0, Probe::Certain(&LABEL));
    assert_eq!(m.get(Field::Sni), Some("aaaaaaaaaaaaaaaa.xx"));
    // A v1 line with no end is not skipped.
    assert!(after_proxy_header(b"PROXY TCP4 1.2.3.4").is_none());
    // v2: signature, version/command, family, 12 address bytes, then the payload.
    let mut v2 = b"\r\n\r\n\0\r\nQUIT\n\x21\x11\x00\x0c".to_vec();
    v2.extend_from_slice(&[0; 12]);
    v2.push(22);
    assert_eq!(after_proxy_header(&v2), Some(&[22u8][..]));
}
