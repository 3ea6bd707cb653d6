use super::*;
use crate::tests::{probe, to_server, vector};

fn hex(s: &str) -> Vec<u8> {
    crate::tests::parse_hex(s)
}

/// RFC 9001 Appendix A.1: client Initial keys for DCID 0x8394c8f03e515708.
#[test]
fn rfc9001_client_initial_keys() {
    // Three times: the second from the salt's keyed state and the memo the first filled, the
    // third derived again from the keyed state alone (memo emptied).
    let mut digests = Digests::default();
    for round in 0..3 {
        if round == 2 {
            digests.quic = Default::default();
        }
        let (k, iv, hp) = client_keys(V1, &hex("8394c8f03e515708"), &mut digests).unwrap();
        assert_eq!(k.to_vec(), hex("1f369613dd76d5467730efcbe3b1a22d"));
        assert_eq!(iv.to_vec(), hex("fa044b2f42a3fd3b46fb255c"));
        assert_eq!(hp.to_vec(), hex("9f50449e04a0e810283a1e9933adedd2"));
        assert_eq!(digests.quic.hits, u64::from(round == 1), "round {round}");
    }
}

proptest::proptest! {
    /// Keys from the worker's memo are the keys derived afresh, whatever connection ids and
    /// versions come in whatever order (slots shared, ids longer than a slot holds, a version
    /// with no salt).
    #[test]
    fn memo_keys_are_the_derived_keys(
        ids in proptest::collection::vec(proptest::collection::vec(proptest::prelude::any::<u8>(), 0..24), 1..40),
        order in proptest::collection::vec((proptest::prelude::any::<proptest::sample::Index>(), 0usize..3), 1..120),
    ) {
        let versions = [V1, 0xff00_001d, 0x0bad_cafe];
        let mut memo = Digests::default();
        for (ix, v) in order {
            let id = ix.get(&ids);
            let fresh = client_keys(versions[v], id, &mut Digests::default());
            proptest::prop_assert_eq!(client_keys(versions[v], id, &mut memo), fresh);
            proptest::prop_assert_eq!(fresh.is_some(), v < 2);
        }
    }
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
    let (r, m) = probe(
        &INSPECTOR,
        to_server(UDP, 4433),
        &vector!("quic_d29_initial"),
    );
    assert_eq!(r, Probe::Certain(&LABEL));
    assert_eq!(m.get(Field::Sni), Some("localhost"));
    assert_eq!(m.get(Field::QuicVersion), Some("Draft-29"));
    assert_eq!(
        m.get(Field::Ja4),
        Some("q13d0512h9_d55e91d5c3b2_cd318bf3b157")
    );
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
    let (r, m) = probe(
        &INSPECTOR,
        to_server(UDP, 4433),
        &vector!("quic_reserved_initial"),
    );
    assert_eq!(r, Probe::Certain(&LABEL));
    assert_eq!(m.get(Field::QuicVersion), Some("Ver-Negotiation"));
    assert_eq!(m.get(Field::Sni), Some("quic.westus.cloudapp.azure.com"));
}

/// quic-mvfst-22.pcap: Facebook's mvfst version 0xfaceb001 protects Initials with draft 22's
/// salt. tshark: SNI graph.facebook.com; nDPI: MVFST-22.
#[test]
fn mvfst_initial_from_corpus() {
    let (r, m) = probe(
        &INSPECTOR,
        to_server(UDP, 443),
        &vector!("quic_mvfst22_initial"),
    );
    assert_eq!(r, Probe::Certain(&LABEL));
    assert_eq!(m.get(Field::QuicVersion), Some("MVFST-22"));
    assert_eq!(m.get(Field::Sni), Some("graph.facebook.com"));
}

/// quic-34.pcap, frame 1: a draft-34 Initial (version 0xff000022, the draft-29 salt) whose
/// ClientHello tshark decrypts: no server_name, ALPN `h3-34,hq-34,…,h3,hq-interop` (tshark
/// 4.0, `tls.handshake.extensions_alpn_str`).
#[test]
fn draft34_initial_from_corpus() {
    let (r, m) = probe(
        &INSPECTOR,
        to_server(UDP, 4443),
        &vector!("quic_d34_initial"),
    );
    assert_eq!(r, Probe::Certain(&LABEL));
    assert_eq!(m.get(Field::QuicVersion), Some("Draft-34"));
    assert_eq!(m.get(Field::Sni), None);
    assert!(
        m.get(Field::Alpn)
            .is_some_and(|a| a.starts_with("h3-34,hq-34,h3-33")),
        "{m:?}"
    );
    // JA3 and JA4's hashes as nDPI has them for this flow (../shared/corpus/flows.csv). JA4's
    // first part by the spec: the highest supported version is 0x7f1c (a TLS 1.3 draft, no
    // JA4 code: `00`), no SNI, 3 suites, 7 extensions, ALPN `h3-34`'s first and last
    // characters (nDPI writes `d` and `h3` there).
    assert_eq!(m.get(Field::Ja3c), Some("0299b052ace53a14c3a04aceb5efd247"));
    assert_eq!(
        m.get(Field::Ja4),
        Some("q00i0307h4_55b375c5d22e_af0a630e9e67")
    );
}

/// snapchat_call.pcapng, frame 1: a Q046 Initial whose CHLO (in clear; tshark 4.0: `gquic.tag`
/// CHLO, version Q046) has no SNI tag: the hello is marked read (`h`), with no name.
#[test]
fn q046_chlo_without_sni_from_corpus() {
    let (r, m) = probe(
        &INSPECTOR,
        to_server(UDP, 443),
        &vector!("gquic_q046_chlo_nosni"),
    );
    assert_eq!(r, Probe::Certain(&LABEL));
    assert_eq!(m.get(Field::QuicVersion), Some("Q046"));
    assert_eq!(m.get(Field::TlsFlags), Some("h"));
    assert_eq!(m.get(Field::Sni), None);
}

/// A CHLO's tag table (gQUIC crypto handshake: tag count, padding, then tag and end offset
/// pairs, little-endian, then the values): the SNI tag's value is the name.
#[test]
fn gquic_chlo_tag_table() {
    let mut d = b"....CHLO".to_vec();
    d.extend_from_slice(&[2, 0, 0, 0]);
    d.extend_from_slice(b"PAD\0");
    d.extend_from_slice(&3u32.to_le_bytes());
    d.extend_from_slice(b"SNI\0");
    d.extend_from_slice(&14u32.to_le_bytes());
    d.extend_from_slice(b"---example.com");
    assert_eq!(gquic_sni(&d), Some(Some(&b"example.com"[..])));
    assert_eq!(gquic_sni(&d[..d.len() - 1]), Some(None), "value cut short");
    assert_eq!(gquic_sni(&d[..12]), None, "no tag table");
}

proptest::proptest! {
    /// The run of zero bytes (PADDING frames) is measured exactly, whatever the run's length
    /// and alignment against the 16-byte steps and whatever follows it.
    #[test]
    fn zero_run_is_the_leading_zeros(
        zeros in 0usize..100,
        tail in proptest::collection::vec(proptest::num::u8::ANY, 0..40),
    ) {
        let mut b = vec![0u8; zeros];
        b.extend_from_slice(&tail);
        let naive = b.iter().take_while(|&&x| x == 0).count();
        proptest::prop_assert_eq!(zero_run(&b), naive);
    }
}

proptest::proptest! {
    /// CRYPTO frames written at their offsets give the bytes a zeroed buffer would hold, in any
    /// order, with gaps and overlaps, up to the last byte written.
    #[test]
    fn put_at_equals_a_zeroed_buffer(
        frames in proptest::collection::vec((0usize..300, proptest::collection::vec(1u8..=255, 0..80)), 0..12)
    ) {
        let mut zeroed = [0u8; 512];
        let mut end = 0;
        let mut buf = ArrayVec::<u8, 512>::new();
        for (off, data) in &frames {
            zeroed[*off..*off + data.len()].copy_from_slice(data);
            end = end.max(off + data.len());
            proptest::prop_assert!(put_at(&mut buf, *off, data).is_some());
        }
        // An empty frame past the end still leaves zeros up to its offset.
        let end = frames.iter().map(|(o, _)| *o).max().unwrap_or(0).max(end);
        proptest::prop_assert_eq!(&buf[..], &zeroed[..end]);
    }
}

/// 1kxun.pcap, frame 14: an LLMNR query (ID 0xa000, flags 0, one question `RO_X1C` ANY) reads
/// as a long header of version 0 with a one-byte DCID and three "supported versions". Moved
/// off udp/5355 it was QUIC; a Version Negotiation packet is a server's answer, never a
/// client's first packet (RFC 9000 §17.2.1).
#[test]
fn a_dns_format_query_is_not_a_version_negotiation() {
    let q = crate::proto::testkit::hex(
        "a000 0000 0001 0000 0000 0000 0652 4f5f 5831 4300 00ff 0001",
    );
    assert_eq!(
        crate::proto::testkit::probe(&INSPECTOR, UDP, 38123, 61603, false, &q),
        Probe::NotForUs
    );
    // The DNS inspector's, as for the other DNS-format queries moved off their ports.
    assert_eq!(
        crate::proto::testkit::classify(UDP, 38123, 61603, &[(true, &q)]),
        Some("DNS")
    );
}

/// A client's Initial of an unknown version, then the server's Version Negotiation listing v1
/// and draft 29 (RFC 9000 §17.2.1: first byte with the long-header bit, version 0, the
/// client's CIDs swapped, the versions): QUIC, named Ver-Negotiation. Without a version
/// list, or with a piece of one, it is not.
#[test]
fn a_server_version_negotiation_is_quic() {
    let mut vn = vec![0x80 | 0x2a, 0, 0, 0, 0, 4, 1, 2, 3, 4, 4, 5, 6, 7, 8];
    vn.extend_from_slice(&[0, 0, 0, 1, 0xff, 0, 0, 0x1d]);
    assert!(matches!(
        crate::proto::testkit::probe(&INSPECTOR, UDP, 443, 50000, true, &vn),
        Probe::Certain(_)
    ));
    for cut in [vn.len() - 8, vn.len() - 1] {
        assert_eq!(
            crate::proto::testkit::probe(&INSPECTOR, UDP, 443, 50000, true, &vn[..cut]),
            Probe::NotForUs,
            "{cut}"
        );
    }
}

/// DNS over QUIC: aioquic's client Initial offering ALPN `doq` (netcap's `doq` scenario, RFC
/// 9250) is QUIC.DoH_DoT on its port and off it; the corpus's h3 Initial stays QUIC.
#[test]
fn alpn_doq_is_dns_over_quic() {
    let v = vector!("quic_doq_initial");
    for port in [853, 443, 40853] {
        let (r, m) = probe(&INSPECTOR, to_server(UDP, port), &v);
        assert_eq!(r, Probe::Certain(&DOQ), "port {port}");
        assert_eq!(m.get(Field::Alpn), Some("doq"));
        assert_eq!(m.get(Field::Sni), Some("dns.example.org"));
    }
    let (r, _) = probe(&INSPECTOR, to_server(UDP, 853), &vector!("quic_v1_initial"));
    assert_eq!(r, Probe::Certain(&LABEL));
}
