use super::*;
use crate::tests::{probe, to_server, vector};

fn hex(s: &str) -> Vec<u8> {
    crate::tests::parse_hex(s)
}

/// RFC 9001 Appendix A.1: client Initial keys for DCID 0x8394c8f03e515708.
#[test]
fn rfc9001_client_initial_keys() {
    let (k, iv, hp) = client_keys(V1, &hex("8394c8f03e515708")).unwrap();
    assert_eq!(k.to_vec(), hex("1f369613dd76d5467730efcbe3b1a22d"));
    assert_eq!(iv.to_vec(), hex("fa044b2f42a3fd3b46fb255c"));
    assert_eq!(hp.to_vec(), hex("9f50449e04a0e810283a1e9933adedd2"));
}

/// quic_0RTT.pcap, frame 5: a v1 client Initial. tshark: SNI ssl.gstatic.com; nDPI: V-1.
#[test]
fn v1_initial_from_corpus() {
    let (r, m) = probe(&INSPECTOR, to_server(UDP, 443), &vector!("quic_v1_initial"));
    assert_eq!(r, Probe::Certain(&LABEL));
    assert_eq!(m.get(Field::Sni), Some("ssl.gstatic.com"));
    assert_eq!(m.get(Field::QuicVersion), Some("V-1"));
    assert!(m.get(Field::Ja4).unwrap().starts_with("q13d"));
}

/// quic-29.pcap, frame 1: a draft-29 client Initial. tshark: SNI localhost, ALPN h3-29; nDPI:
/// Draft-29 and JA4 q13d0512h3_d55e91d5c3b2_cd318bf3b157, whose hashes must agree; the ALPN
/// part is the specification's first and last characters of "h3-29" ("h9"; nDPI 4.11 writes
/// the first two).
#[test]
fn draft29_initial_from_corpus() {
    let (r, m) = probe(&INSPECTOR, to_server(UDP, 4433), &vector!("quic_d29_initial"));
    assert_eq!(r, Probe::Certain(&LABEL));
    assert_eq!(m.get(Field::Sni), Some("localhost"));
    assert_eq!(m.get(Field::QuicVersion), Some("Draft-29"));
    assert_eq!(m.get(Field::Ja4), Some("q13d0512h9_d55e91d5c3b2_cd318bf3b157"));
}

#[test]
fn a_damaged_initial_still_says_quic_but_no_sni() {
    let mut v = vector!("quic_v1_initial");
    let n = v.len();
    v[n - 1] ^= 1; // breaks the AEAD tag
    let (r, m) = probe(&INSPECTOR, to_server(UDP, 443), &v);
    assert_eq!(r, Probe::Certain(&LABEL));
    assert!(m.get(Field::Sni).is_none());
}

#[test]
fn version_names_follow_ndpi() {
    let name = |v| {
        let mut b = Buf::<16>::default();
        version_name(v, &mut b).then(|| String::from_utf8(b.as_bytes().to_vec()).unwrap())
    };
    assert_eq!(name(1).as_deref(), Some("V-1"));
    assert_eq!(name(0xff00_001d).as_deref(), Some("Draft-29"));
    assert_eq!(name(0x5130_3436).as_deref(), Some("Q046"));
    assert_eq!(name(0).as_deref(), Some("Ver-Negotiation"));
    assert_eq!(name(0x1234_5678), None);
}

/// quic_interop_V.pcapng, frame 84: version 0x0a0a0a0a forcing negotiation, protected with the
/// draft-29 salt. tshark: SNI quic.westus.cloudapp.azure.com; nDPI: Ver-Negotiation.
#[test]
fn reserved_version_initial_from_corpus() {
    let (r, m) = probe(&INSPECTOR, to_server(UDP, 4433), &vector!("quic_reserved_initial"));
    assert_eq!(r, Probe::Certain(&LABEL));
    assert_eq!(m.get(Field::QuicVersion), Some("Ver-Negotiation"));
    assert_eq!(m.get(Field::Sni), Some("quic.westus.cloudapp.azure.com"));
}

/// quic-mvfst-22.pcap: Facebook's mvfst version 0xfaceb001 protects Initials with draft 22's
/// salt. tshark: SNI graph.facebook.com; nDPI: MVFST-22.
#[test]
fn mvfst_initial_from_corpus() {
    let (r, m) = probe(&INSPECTOR, to_server(UDP, 443), &vector!("quic_mvfst22_initial"));
    assert_eq!(r, Probe::Certain(&LABEL));
    assert_eq!(m.get(Field::QuicVersion), Some("MVFST-22"));
    assert_eq!(m.get(Field::Sni), Some("graph.facebook.com"));
}
