use super::*;
use crate::tests::{probe, to_server, vector};

/// dtls.pcap, frame 1 (tshark: DTLS ClientHello).
#[test]
fn client_hello_from_corpus() {
    let v = vector!("dtls_client_hello");
    assert_eq!(probe(&INSPECTOR, to_server(UDP, 4433), &v).0, Probe::Certain(&LABEL));
    assert_eq!(probe(&INSPECTOR, to_server(UDP, 4433), &v[..v.len() - 1]).0, Probe::NotForUs);
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
