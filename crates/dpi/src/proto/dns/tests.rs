use super::*;
use crate::tests::{probe, to_server, vector};
use crate::Hints;

/// dns.pcap, frame 2: tshark says query www.example.com, type 28 (AAAA).
#[test]
fn query_from_corpus() {
    let (r, m) = probe(&INSPECTOR, to_server(UDP, 53), &vector!("dns_query"));
    assert_eq!(r, Probe::Certain(&DNS));
    assert_eq!(m.get(Field::DnsQuery), Some("www.example.com"));
    assert_eq!(m.get(Field::DnsQtype), Some("28"));
}

#[test]
fn llmnr_and_mdns_by_port() {
    let v = vector!("dns_query");
    assert_eq!(probe(&INSPECTOR, to_server(UDP, 5355), &v).0, Probe::Certain(&LLMNR));
    let h = Hints {
        client_port: 5353,
        ..to_server(UDP, 5353)
    };
    assert_eq!(probe(&INSPECTOR, h, &v).0, Probe::Certain(&MDNS));
}

#[test]
fn compression_loops_are_refused() {
    // Header, then a name that points at itself.
    let mut m = vec![0, 1, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0];
    m.extend_from_slice(&[0xc0, 12, 0, 1, 0, 1]);
    let mut out = Buf::default();
    assert!(name(&m, 12, &mut out).is_none());
    // Off the DNS ports that is not DNS; on them the flow's next message decides (a damaged
    // question does not rule DNS out), and the damage is counted.
    assert_eq!(probe(&INSPECTOR, to_server(UDP, 4000), &m).0, Probe::NotForUs);
    assert_eq!(probe(&INSPECTOR, to_server(UDP, 53), &m).0, Probe::Unsure);
}

/// fuzz-2006-06-26-2594.pcap, client port 2754: the first query's IP header says 37 bytes, so
/// 9 bytes of DNS reach us (tshark: "Bad length value 60 > IP payload length"); the next, frame
/// 273, is whole. The short one must not end inspection: tshark's query name is that of 273.
#[test]
fn a_cut_first_datagram_ends_nothing() {
    let cut = crate::tests::parse_hex("7dcf01000001000000");
    let whole = crate::tests::parse_hex(
        "7dcf01000001000000000000045f736970045f756470037369700963796265726369577902646b0000210001",
    );
    let flow: &[(bool, &[u8])] = &[(true, &cut), (true, &whole)];
    let (l, v) = crate::proto::testkit::classify_meta(UDP, 53, 2754, flow, Some(Field::DnsQuery));
    assert_eq!(l, Some("DNS"));
    assert_eq!(v.as_deref(), Some("_sip._udp.sip.cyberciWy.dk"));
}

/// iphone.pcap, frame 9: an mDNS query with 17 questions; tshark's first query name is
/// _airport._tcp.local, type 12 (PTR).
#[test]
fn mdns_query_with_many_questions() {
    let h = Hints {
        client_port: 5353,
        ..to_server(UDP, 5353)
    };
    let (r, m) = probe(&INSPECTOR, h, &vector!("mdns_query17"));
    assert_eq!(r, Probe::Certain(&MDNS));
    assert_eq!(m.get(Field::DnsQuery), Some("_airport._tcp.local"));
    assert_eq!(m.get(Field::DnsQtype), Some("12"));
}

/// fuzz-2006-06-26-2594.pcap, frames 588 and 541: queries to port 53 whose question or answer
/// count was damaged by fuzzing (34817, 18176); tshark still dissects the first question.
#[test]
fn damaged_counts_on_dns_port_keep_the_name() {
    let (r, m) = probe(&INSPECTOR, to_server(UDP, 53), &vector!("dns_fuzz_qdcount"));
    assert_eq!(r, Probe::Certain(&DNS));
    assert_eq!(m.get(Field::DnsQuery), Some("_sip._udp.sip.cybescity.dk"));
    let (r, m) = probe(&INSPECTOR, to_server(UDP, 53), &vector!("dns_fuzz_ancount"));
    assert_eq!(r, Probe::Certain(&DNS));
    assert_eq!(m.get(Field::DnsQuery), Some("_sip._udp.sip.cyhercity.dk"));
    assert_eq!(m.get(Field::DnsQtype), Some("33"));
    // Off the DNS ports such a header is not taken for DNS.
    let v = vector!("dns_fuzz_qdcount");
    assert_eq!(probe(&INSPECTOR, to_server(UDP, 4000), &v).0, Probe::NotForUs);
}

/// fuzz-2006-06-26-2594.pcap, frame 450 (client port 2791): the third label's length byte 0x73
/// is an RFC 2673 extended label of unknown type; tshark's query name is
/// "<Unknown extended label>".
#[test]
fn unknown_extended_label_as_tshark_writes_it() {
    let q = crate::tests::parse_hex(
        "82eb01000001000000000000045f736970045f756470037369257300796265726369aaaaaaaaaaaaaaaaaaaa",
    );
    let (l, v) =
        crate::proto::testkit::classify_meta(UDP, 53, 2791, &[(true, &q)], Some(Field::DnsQuery));
    assert_eq!(l, Some("DNS"));
    assert_eq!(v.as_deref(), Some("<Unknown extended label>"));
    // A bit-string label (0x41) or the reserved 0x80 type is not this case.
    assert!(!unknown_extended(&[0x41, 0x08, 0xff], 0));
    assert!(!unknown_extended(&[0x80, 0], 0));
    assert!(unknown_extended(&[1, b'a', 0x42], 0));
}
