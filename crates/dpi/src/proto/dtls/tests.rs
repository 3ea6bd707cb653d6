use super::*;
use crate::tests::{probe, to_server, vector};
use crate::Field;

/// dtls.pcap, frame 1 (tshark: DTLS ClientHello).
#[test]
fn client_hello_from_corpus() {
    let v = vector!("dtls_client_hello");
    assert_eq!(
        probe(&INSPECTOR, to_server(UDP, 4433), &v).0,
        Probe::Certain(&LABEL)
    );
    assert_eq!(
        probe(&INSPECTOR, to_server(UDP, 4433), &v[..v.len() - 1]).0,
        Probe::NotForUs
    );
}

/// anyconnect-vpn.pcap, frame 413 (tshark: "DTLS Client Hello", then "DTLS 1.0 (OpenSSL pre
/// 0.9.8f)"): record version 0x0100, as Cisco AnyConnect sends it. nDPI names the flow DTLS.
#[test]
fn openssl_pre_rfc_version_from_corpus() {
    let v = crate::proto::testkit::hex(
        "160100000000000000000000560100004a000000000000004a0100ed89c4699e
         a16489a68421ebd0951f08172d595bf2c2507bd49467c65ee6238a209bb071c8
         a80440614f8347a2ce2efe01540c7af53be22e1eac07398729e026ef00000200
         390100",
    );
    assert!(is_dtls(&v));
    let mut other = v.clone();
    other[1..3].copy_from_slice(&[0x02, 0x00]);
    assert!(!is_dtls(&other));
    assert_eq!(
        crate::proto::testkit::classify(UDP, 443, 54107, &[(true, &v)]),
        Some("DTLS")
    );
}

/// The client's hello is read as TLS's is: dtls.pcap, frame 1 (tshark: DTLS 1.0 record,
/// DTLS 1.2 ClientHello, 12 cipher suites, 7 extensions, no server_name, no ALPN). JA3 and
/// JA4's two hashes: nDPI's on the same flow (../shared/corpus/flows.csv, dtls.pcap flow
/// 192.168.13.203:40739). JA4's first part by the JA4 spec: `d` DTLS, `d2` DTLS 1.2, `i` no
/// SNI, 12 suites, 7 extensions, `00` no ALPN (nDPI writes `d` for the SNI there).
#[test]
fn client_hello_fields_and_fingerprints() {
    let v = vector!("dtls_client_hello");
    let (p, meta) = probe(&INSPECTOR, to_server(UDP, 4433), &v);
    assert_eq!(p, Probe::Certain(&LABEL));
    assert_eq!(
        meta.get(Field::Ja3c),
        Some("bd743610892cec1efed851b2b5efd4f5")
    );
    assert_eq!(
        meta.get(Field::Ja4),
        Some("dd2i120700_7c0e62f61317_d9dd6182da81")
    );
    assert_eq!(meta.get(Field::TlsVersion), Some("DTLSv1.2"));
    assert_eq!(meta.get(Field::Sni), None);
    // A cookie length past the end: the hello is malformed, no fingerprint.
    let mut cut = v.clone();
    // record 13 + handshake 12 + version 2 + random 32 + session id length 1 (0 here): the
    // cookie's length byte.
    assert_eq!(cut[13 + 12 + 2 + 32], 0, "empty session id");
    cut[13 + 12 + 2 + 32 + 1] = 0xff;
    let (_, meta) = probe(&INSPECTOR, to_server(UDP, 4433), &cut);
    assert_eq!(meta.get(Field::Ja3c), None);
}
