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
    assert_eq!(
        probe(&INSPECTOR, to_server(UDP, 5355), &v).0,
        Probe::Certain(&LLMNR)
    );
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
    assert_eq!(
        probe(&INSPECTOR, to_server(UDP, 4000), &m).0,
        Probe::NotForUs
    );
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
    assert_eq!(
        probe(&INSPECTOR, to_server(UDP, 4000), &v).0,
        Probe::NotForUs
    );
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
// ---- The answer section (`answers`) ----

use proptest::prelude::*;
use std::net::IpAddr;

/// One call to an [`AnswerSink`].
#[derive(Clone, Debug, PartialEq, Eq)]
enum Call {
    Name(String),
    Addr(IpAddr, u32),
}

/// A sink that records the calls, writing names with `text`.
struct Calls(Vec<Call>, fn(&[u8]) -> String);

impl AnswerSink for Calls {
    fn name(&mut self, name: &[u8]) {
        self.0.push(Call::Name((self.1)(name)));
    }
    fn addr(&mut self, addr: IpAddr, ttl: u32) {
        self.0.push(Call::Addr(addr, ttl));
    }
}

/// `answers` on `m`: what it returned and the calls it made (names with bytes outside printable
/// ASCII escaped).
fn read(m: &[u8]) -> (bool, Vec<Call>) {
    read_with(m, |b| b.escape_ascii().to_string())
}

fn read_with(m: &[u8], text: fn(&[u8]) -> String) -> (bool, Vec<Call>) {
    let mut c = Calls(Vec::new(), text);
    let ok = answers(m, &mut c);
    (ok, c.0)
}

fn n(s: &str) -> Call {
    Call::Name(s.into())
}

fn a(s: &str, ttl: u32) -> Call {
    Call::Addr(s.parse().unwrap(), ttl)
}

/// A response written by hand from RFC 1035 §4.1 (offsets in the comments): www.example.com is
/// a CNAME for edge.example.com (compressed: "edge" and a pointer to "example.com" in the
/// question), which has a TXT record, two A records of class IN with one of class CH between
/// them, and an AAAA record (owner names: pointers to the question and to the CNAME's target).
fn rfc_response() -> Vec<u8> {
    let m = [
        // §4.1.1 header, 0: ID 0x1234; QR=1 OPCODE=0 AA=0 TC=0 RD=1 RA=1 Z=0 RCODE=0;
        // QDCOUNT 1, ANCOUNT 6, NSCOUNT 0, ARCOUNT 0.
        &[0x12, 0x34, 0x81, 0x80, 0, 1, 0, 6, 0, 0, 0, 0][..],
        // §4.1.2 question, 12: QNAME www.example.com ("example" at 16), QTYPE A, QCLASS IN.
        b"\x03www\x07example\x03com\x00",
        &[0, 1, 0, 1],
        // §4.1.3 RR, 33: NAME -> 12, TYPE CNAME (5), CLASS IN, TTL 300, RDLENGTH 7,
        // RDATA at 45: "edge" then a pointer to 16 (example.com).
        &[0xc0, 12, 0, 5, 0, 1, 0, 0, 0x01, 0x2c, 0, 7],
        b"\x04edge\xc0\x10",
        // 52: NAME -> 45, TYPE TXT (16), CLASS IN, TTL 60, RDLENGTH 6, "hello".
        &[0xc0, 45, 0, 16, 0, 1, 0, 0, 0, 60, 0, 6],
        b"\x05hello",
        // 70: NAME -> 45, TYPE A, CLASS IN, TTL 60, RDLENGTH 4, 93.184.216.34.
        &[0xc0, 45, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, 93, 184, 216, 34],
        // 86: NAME -> 45, TYPE A, CLASS CH (3), TTL 60, RDLENGTH 4: skipped.
        &[0xc0, 45, 0, 1, 0, 3, 0, 0, 0, 60, 0, 4, 10, 0, 0, 1],
        // 102: NAME -> 45, TYPE A, CLASS IN, TTL 120, RDLENGTH 4, 93.184.216.35.
        &[0xc0, 45, 0, 1, 0, 1, 0, 0, 0, 120, 0, 4, 93, 184, 216, 35],
        // 118: NAME -> 45, TYPE AAAA (28), CLASS IN, TTL 3600, RDLENGTH 16,
        // 2606:2800:220:1:248:1893:25c8:1946.
        &[0xc0, 45, 0, 28, 0, 1, 0, 0, 0x0e, 0x10, 0, 16],
        &[
            0x26, 0x06, 0x28, 0x00, 0x02, 0x20, 0x00, 0x01, 0x02, 0x48, 0x18, 0x93, 0x25, 0xc8,
            0x19, 0x46,
        ],
    ]
    .concat();
    assert_eq!(m.len(), 146);
    m
}

fn rfc_calls() -> Vec<Call> {
    vec![
        n("www.example.com"),
        n("edge.example.com"),
        a("93.184.216.34", 60),
        a("93.184.216.35", 120),
        a("2606:2800:220:1:248:1893:25c8:1946", 3600),
    ]
}

/// Header and question of a response for `www.example.com` (QTYPE A) saying `an` answers.
fn head(an: u16) -> Vec<u8> {
    let mut m = vec![0x12, 0x34, 0x81, 0x80, 0, 1];
    m.extend_from_slice(&an.to_be_bytes());
    m.extend_from_slice(&[0, 0, 0, 0]);
    m.extend_from_slice(b"\x03www\x07example\x03com\x00\x00\x01\x00\x01");
    m
}

/// An A record owned by the question's name.
fn a_rr(ip: [u8; 4], ttl: u32) -> Vec<u8> {
    let mut r = vec![0xc0, 12, 0, 1, 0, 1];
    r.extend_from_slice(&ttl.to_be_bytes());
    r.extend_from_slice(&[0, 4]);
    r.extend_from_slice(&ip);
    r
}

#[test]
fn rfc_response_names_then_addresses_in_record_order() {
    assert_eq!(read(&rfc_response()), (true, rfc_calls()));
}

#[test]
fn only_successful_standard_responses_are_read() {
    let ok = rfc_response();
    let with = |i: usize, v: u8| {
        let mut m = ok.clone();
        m[i] = v;
        m
    };
    // A query (QR=0), RCODE 3 (NXDOMAIN), OPCODE 5 (UPDATE): nothing is called.
    for m in [with(2, 0x01), with(3, 0x83), with(2, 0x81 | 5 << 3)] {
        assert_eq!(read(&m), (false, vec![]));
    }
    // No question; no answer; five questions (over the cap of 4).
    for (i, v) in [(5, 0), (7, 0), (5, 5)] {
        assert_eq!(read(&with(i, v)), (false, vec![]), "byte {i} = {v}");
    }
    assert_eq!(read(&[]), (false, vec![]));
    assert_eq!(read(&ok[..12]), (false, vec![]));
}

#[test]
fn later_questions_are_skipped() {
    // QDCOUNT 2: a second question (a pointer to the first's name, QTYPE AAAA) before the answer.
    let mut m = head(1);
    m[5] = 2;
    m.extend_from_slice(&[0xc0, 12, 0, 28, 0, 1]);
    m.extend(a_rr([192, 0, 2, 1], 5));
    assert_eq!(
        read(&m),
        (true, vec![n("www.example.com"), a("192.0.2.1", 5)])
    );
    // A second question cut short: nothing is called.
    let mut m = head(1);
    m[5] = 2;
    m.extend_from_slice(&[0xc0, 12, 0]);
    assert_eq!(read(&m), (false, vec![]));
}

#[test]
fn a_ttl_with_the_top_bit_set_is_zero() {
    let mut m = head(1);
    m.extend(a_rr([192, 0, 2, 1], 0x8000_0001));
    assert_eq!(
        read(&m),
        (true, vec![n("www.example.com"), a("192.0.2.1", 0)])
    );
}

#[test]
fn at_most_max_answers_records_are_read() {
    let mut m = head(40);
    for i in 0..40u8 {
        m.extend(a_rr([192, 0, 2, i], 1));
    }
    let (ok, calls) = read(&m);
    assert!(ok);
    assert_eq!(calls.len(), 1 + MAX_ANSWERS);
    assert_eq!(calls[MAX_ANSWERS], a("192.0.2.31", 1));
    // Records past the cap are not read: their absence is no damage.
    m.truncate(m.len() - 8 * 16);
    assert_eq!(read(&m), (true, calls));
}

#[test]
fn damaged_records_are_refused_after_what_was_read() {
    let good = |calls: usize| -> Vec<Call> { rfc_calls()[..calls].to_vec() };
    let ok = rfc_response();
    let with = |i: usize, v: u8| {
        let mut m = ok.clone();
        m[i] = v;
        m
    };
    // The first A's RDLENGTH 5: both names were given, then the damage.
    assert_eq!(read(&with(81, 5)), (false, good(2)));
    // The first A's RDLENGTH 3.
    assert_eq!(read(&with(81, 3)), (false, good(2)));
    // The AAAA's RDLENGTH 4 (and the message ends 12 bytes later than that says).
    assert_eq!(read(&with(129, 4)), (false, good(4)));
    // The AAAA's RDLENGTH 17: beyond the message.
    assert_eq!(read(&with(129, 17)), (false, good(4)));
    // The TXT's RDLENGTH 0x106: beyond the message.
    assert_eq!(read(&with(62, 1)), (false, good(2)));
    // The CNAME's RDLENGTH 8: its target does not fill it.
    assert_eq!(read(&with(44, 8)), (false, good(1)));
    // A label length of 0x80 (reserved) in the CNAME's target.
    assert_eq!(read(&with(45, 0x80)), (false, good(1)));
    // An extra byte after the last record is outside the answer section: no damage.
    let mut m = ok.clone();
    m.push(0);
    assert_eq!(read(&m), (true, rfc_calls()));
}

#[test]
fn a_name_over_255_bytes_is_refused() {
    // A question name of 5 labels of 63 bytes: 319 bytes of text.
    let mut m = vec![0x12, 0x34, 0x81, 0x80, 0, 1, 0, 1, 0, 0, 0, 0];
    for _ in 0..5 {
        m.push(63);
        m.extend_from_slice(&[b'x'; 63]);
    }
    m.extend_from_slice(&[0, 0, 1, 0, 1]);
    m.extend(a_rr([192, 0, 2, 1], 5));
    assert_eq!(read(&m), (false, vec![]));
}

#[test]
fn compression_loops_and_forward_pointers_are_refused() {
    // The question's name points at itself.
    let mut m = vec![
        0x12, 0x34, 0x81, 0x80, 0, 1, 0, 1, 0, 0, 0, 0, 0xc0, 12, 0, 1, 0, 1,
    ];
    m.extend(a_rr([192, 0, 2, 1], 5));
    assert_eq!(read(&m), (false, vec![]));
    let ok = rfc_response();
    let with = |i: usize, v: u8| {
        let mut m = ok.clone();
        m[i] = v;
        m
    };
    // The CNAME's target: a pointer to itself (its byte 50), then a forward one (to 52).
    assert_eq!(read(&with(51, 50)), (false, vec![n("www.example.com")]));
    assert_eq!(read(&with(51, 52)), (false, vec![n("www.example.com")]));
    // The first record's owner: a pointer to itself; the second's: a forward pointer.
    assert_eq!(read(&with(34, 33)), (false, vec![n("www.example.com")]));
    let two = rfc_calls()[..2].to_vec();
    assert_eq!(read(&with(53, 70)), (false, two));
    // A name that loops through backward pointers only ("a", then a pointer to its own start):
    // the cap on pointers ends it.
    let mut m = vec![
        0x12, 0x34, 0x81, 0x80, 0, 1, 0, 1, 0, 0, 0, 0, 1, b'a', 0xc0, 12,
    ];
    m.extend_from_slice(&[0, 1, 0, 1]);
    m.extend(a_rr([192, 0, 2, 1], 5));
    assert_eq!(read(&m), (false, vec![]));
}

#[test]
fn every_prefix_is_refused_with_a_prefix_of_the_calls() {
    let m = rfc_response();
    let (_, full) = read(&m);
    for cut in 0..m.len() {
        let (ok, calls) = read(&m[..cut]);
        assert!(!ok, "cut at {cut}");
        assert!(full.starts_with(&calls), "cut at {cut}: {calls:?}");
    }
}

/// Checks what any call of `answers` must keep to: at most MAX_ANSWERS addresses and
/// MAX_ANSWERS + 1 names, names of at most 255 bytes, the question's name first.
fn bounded(m: &[u8]) -> (bool, Vec<Call>) {
    let (ok, calls) = read(m);
    let addrs = calls.iter().filter(|c| matches!(c, Call::Addr(..))).count();
    assert!(addrs <= MAX_ANSWERS);
    assert!(calls.len() - addrs <= MAX_ANSWERS + 1);
    assert!(calls.len() <= MAX_ANSWERS + 1);
    assert!(calls.first().is_none_or(|c| matches!(c, Call::Name(_))));
    assert!(!ok || !calls.is_empty());
    (ok, calls)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    /// Any bytes, and any bytes behind a valid header and question: no panic, bounded calls.
    #[test]
    fn garbage_is_bounded(
        data in proptest::collection::vec(any::<u8>(), 0..700),
        an in any::<u16>(),
    ) {
        bounded(&data);
        let mut m = head(an);
        m.extend_from_slice(&data);
        bounded(&m);
    }

    /// The RFC response with up to 8 bytes changed: no panic, bounded calls.
    #[test]
    fn mutations_are_bounded(
        edits in proptest::collection::vec((0usize..146, any::<u8>()), 1..8),
        cut in 0usize..=146,
    ) {
        let mut m = rfc_response();
        for (i, v) in edits {
            m[i] = v;
        }
        bounded(&m);
        bounded(&m[..cut]);
    }
}

/// Captures of the shared corpus that hold DNS responses over UDP (plain, tunnelled, damaged by
/// fuzzing or cut by the capture's snap length); `WIRESPEED_DNS_ALL=1` checks every capture.
const TSHARK_CAPTURES: &[&str] = &[
    "dns.pcap",
    "android.pcap",
    "iphone.pcap",
    "telegram.pcap",
    "dns-tunnel-iodine.pcap",
    "dnscrypt-v1-and-resolver-pings.pcap",
    "dns_ambiguous_names.pcap",
    "dns-invalid-chars.pcap",
    "dns-google-nsid.pcapng",
    "avast_securedns.pcapng",
    "malformed_dns.pcap",
    "badpackets.pcap",
    "fuzz-2006-06-26-2594.pcap",
];

/// A name as tshark writes it: the root as "<Root>", ASCII control bytes in octal. Bytes that
/// are not UTF-8 tshark replaces in its own way: such a name is only "<not UTF-8>" here.
fn tshark_name(b: &[u8]) -> String {
    if b.is_empty() {
        return "<Root>".into();
    }
    let Ok(t) = std::str::from_utf8(b) else {
        return NOT_UTF8.into();
    };
    t.chars()
        .map(|c| match c {
            '\0'..='\x1f' | '\x7f' => format!("\\{:03o}", u32::from(c)),
            c => c.to_string(),
        })
        .collect()
}

const NOT_UTF8: &str = "<not UTF-8>";

/// The same for a name as tshark wrote it.
fn tshark_text(t: &str) -> String {
    if t.contains('\u{fffd}') {
        NOT_UTF8.into()
    } else {
        t.into()
    }
}

/// The calls `answers` must make, from tshark's fields: its first question name, then the first
/// `records` answer records of its per-record type, class and TTL lists, taking its A, AAAA and
/// CNAME values (`values`, in that order) as the records need them.
fn tshark_calls(
    qname: Option<&str>,
    records: usize,
    types: &[&str],
    classes: &[&str],
    ttls: &[&str],
    values: [&[&str]; 3],
) -> Vec<Call> {
    let mut want: Vec<Call> = qname
        .map(|q| Call::Name(tshark_text(q)))
        .into_iter()
        .collect();
    let [mut v4, mut v6, mut cn] = values.map(|v| v.iter());
    for (i, &t) in types.iter().enumerate().take(records) {
        let class = classes
            .get(i)
            .map(|c| u16::from_str_radix(&c[2..], 16).unwrap());
        let ttl: u32 = ttls.get(i).map_or(0, |t| t.parse().unwrap());
        let ttl = if ttl >= 1 << 31 { 0 } else { ttl };
        // tshark gives A and AAAA values for class IN only, CNAME targets for any class.
        match (t, class) {
            ("1", Some(1)) => want.extend(v4.next().map(|v| a(v, ttl))),
            ("28", Some(1)) => want.extend(v6.next().map(|v| a(v, ttl))),
            ("5", Some(1)) => want.extend(cn.next().map(|t| Call::Name(tshark_text(t)))),
            ("5", _) => drop(cn.next()),
            _ => {}
        }
    }
    want
}

/// Independent check: tshark dissects the DNS responses of real captures; from its question
/// name and its answer records (the first ANCOUNT of its per-record type, class and TTL lists,
/// with its A, AAAA and CNAME values taken in order) we build the calls `answers` must make,
/// and compare. Where tshark finds the message damaged (malformed, or cut by the snap length),
/// `answers` must make a prefix of those calls. Skips without the corpus or tshark.
#[test]
fn answers_agree_with_tshark() {
    let Some(corpus) = wirespeed_testkit::corpus("answers_agree_with_tshark") else {
        return;
    };
    if std::process::Command::new("tshark")
        .arg("--version")
        .output()
        .is_err()
    {
        wirespeed_testkit::skip(
            "answers_agree_with_tshark",
            "tshark is not installed (apt-get install tshark)",
        );
        return;
    }
    let files: Vec<_> = if std::env::var_os("WIRESPEED_DNS_ALL").is_some() {
        corpus.pcaps()
    } else {
        TSHARK_CAPTURES.iter().map(|f| corpus.pcap(f)).collect()
    };
    let (mut responses, mut read_ok, mut refused, mut damaged, mut calls_seen) = (0, 0, 0, 0, 0);
    let (mut addrs_seen, mut cnames_seen) = (0, 0);
    let mut bad = Vec::new();
    for f in files.iter().filter(|f| f.is_file()) {
        let out = std::process::Command::new("tshark")
            .arg("-n")
            .arg("-r")
            .arg(f)
            .args(["-Y", "udp && dns.flags.response == 1 && !icmp && !icmpv6"])
            .args([
                "-T",
                "fields",
                "-E",
                "aggregator=\u{1f}",
                "-E",
                "occurrence=a",
            ])
            .args([
                "-e",
                "frame.number",
                "-e",
                "frame.len",
                "-e",
                "frame.cap_len",
            ])
            .args([
                "-e",
                "_ws.malformed",
                "-e",
                "udp.payload",
                "-e",
                "dns.flags.opcode",
            ])
            .args(["-e", "dns.flags.rcode", "-e", "dns.count.queries"])
            .args([
                "-e",
                "dns.count.answers",
                "-e",
                "dns.qry.name",
                "-e",
                "dns.resp.type",
            ])
            .args(["-e", "dns.resp.class", "-e", "dns.resp.ttl", "-e", "dns.a"])
            .args(["-e", "dns.aaaa", "-e", "dns.cname", "-e", "udp.length"])
            .output()
            .expect("tshark runs");
        // A capture cut short ends tshark with an error after the frames it could read.
        assert!(
            out.status.success() || !out.stdout.is_empty() || !out.stderr.is_empty(),
            "tshark on {}",
            f.display()
        );
        for line in String::from_utf8_lossy(&out.stdout).lines() {
            let col: Vec<Vec<&str>> = line
                .split('\t')
                .map(|c| c.split('\u{1f}').filter(|s| !s.is_empty()).collect())
                .collect();
            let first = |i: usize| col.get(i).and_then(|c| c.first().copied());
            let num = |i: usize| -> u64 {
                let v = first(i).unwrap_or("0");
                match v.strip_prefix("0x") {
                    Some(h) => u64::from_str_radix(h, 16).unwrap(),
                    None => v.parse().unwrap(),
                }
            };
            let list = |i: usize| col.get(i).cloned().unwrap_or_default();
            // The innermost UDP's payload is the DNS message.
            let Some(payload) = list(4).last().map(|h| crate::tests::parse_hex(h)) else {
                continue;
            };
            responses += 1;
            // Damage: malformed, cut by the snap length, or a first IP fragment (the UDP length
            // says more than there is).
            let udp_len = list(16).last().map_or(0, |l| l.parse::<usize>().unwrap());
            // tshark also writes a damaged name as a text in angle brackets ("<Name too long>").
            let (qnames, cnames) = (list(9), list(15));
            let bad_name = qnames
                .iter()
                .chain(&cnames)
                .any(|t| t.starts_with('<') && *t != "<Root>");
            let damaged_here =
                !list(3).is_empty() || num(1) != num(2) || udp_len != payload.len() + 8 || bad_name;
            let (opcode, rcode, qd, an) = (num(5), num(6), num(7), num(8));
            let want = if opcode == 0 && rcode == 0 && (1..=4).contains(&qd) && an > 0 {
                let records = (an as usize).min(MAX_ANSWERS);
                tshark_calls(
                    first(9),
                    records,
                    &list(10),
                    &list(11),
                    &list(12),
                    [&list(13), &list(14), &list(15)],
                )
            } else {
                Vec::new()
            };
            let (ok, got) = read_with(&payload, tshark_name);
            calls_seen += got.len();
            addrs_seen += got.iter().filter(|c| matches!(c, Call::Addr(..))).count();
            cnames_seen += got
                .iter()
                .skip(1)
                .filter(|c| matches!(c, Call::Name(_)))
                .count();
            match (ok, damaged_here) {
                (true, _) => read_ok += 1,
                (false, false) => refused += 1,
                (false, true) => damaged += 1,
            }
            let agrees = if damaged_here {
                want.starts_with(&got) && (!ok || got == want)
            } else {
                ok != want.is_empty() && got == want
            };
            if !agrees {
                let frame = first(0).unwrap_or("?");
                bad.push(format!(
                    "{} #{frame}: tshark {want:?}, ours {ok} {got:?}",
                    f.display()
                ));
            }
        }
    }
    eprintln!(
        "answers_agree_with_tshark: {} captures, {responses} responses: {read_ok} read \
         ({calls_seen} calls: {addrs_seen} addresses, {cnames_seen} CNAME targets), \
         {refused} refused as tshark does (no answers, an error code), {damaged} refused \
         where tshark finds damage; {} disagreements",
        files.len(),
        bad.len()
    );
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    assert!(read_ok > 0, "no DNS responses were read");
}

// The three answers of the capture below.
const RESP0: &str = "10008580000100010000000003777777076578616d706c65036f72670000010001c00c00010001000000000004c0000250";
const RESP1: &str = "100185800001000100000000046d61696c076578616d706c65036f72670000010001c00c00010001000000000004c0000250";
const RESP2: &str = "1002858000010001000000000363646e076578616d706c65036e65740000010001c00c00010001000000000004c0000251";

/// Three transactions on one 5-tuple, as scripts/netcap (`netcap.py dns`) captured them:
/// dnsmasq 2.90 (Debian) answering three queries a client sent from one socket (tshark 4.0.17:
/// dns, queries www.example.org, mail.example.org, cdn.example.net). Every name is listed.
#[test]
fn several_transactions_on_one_five_tuple() {
    use crate::proto::testkit::{classify_meta, hex};
    let q = [
        "10000100000100000000000003777777076578616d706c65036f72670000010001",
        "100101000001000000000000046d61696c076578616d706c65036f72670000010001",
        "1002010000010000000000000363646e076578616d706c65036e65740000010001",
    ];
    let r = [RESP0, RESP1, RESP2];
    let pkts: Vec<Vec<u8>> = q
        .iter()
        .zip(r)
        .flat_map(|(q, r)| [hex(q), hex(r)])
        .collect();
    let flow: Vec<(bool, &[u8])> = pkts
        .iter()
        .enumerate()
        .map(|(i, p)| (i % 2 == 0, &p[..]))
        .collect();
    let (l, names) = classify_meta(crate::UDP, 53, 40053, &flow, Some(Field::DnsNames));
    assert_eq!(l, Some("DNS"));
    assert_eq!(
        names.as_deref(),
        Some("www.example.org,mail.example.org,cdn.example.net")
    );
    // The first query's name stays the flow's `dns_query`.
    let (_, first) = classify_meta(crate::UDP, 53, 40053, &flow, Some(Field::DnsQuery));
    assert_eq!(first.as_deref(), Some("www.example.org"));
    // A name asked twice is listed once.
    let again = [flow[0], flow[1], flow[0], flow[1]];
    let (_, names) = classify_meta(crate::UDP, 53, 40053, &again, Some(Field::DnsNames));
    assert_eq!(names.as_deref(), Some("www.example.org"));
}

// ---- nDPI's verdicts (`dns_flags`) ----

/// A header (RFC 1035 §4.1.1): ID 0x4d2, these flags and counts.
fn header(flags: u16, [qd, an, ns, ar]: [u16; 4]) -> Vec<u8> {
    [0x04d2, flags, qd, an, ns, ar]
        .iter()
        .flat_map(|v: &u16| v.to_be_bytes())
        .collect()
}

/// A question (§4.1.2): `labels` as a name, QTYPE `qtype`, QCLASS IN.
fn question(labels: &[&[u8]], qtype: u16) -> Vec<u8> {
    let mut q = Vec::new();
    for l in labels {
        q.push(l.len() as u8);
        q.extend_from_slice(l);
    }
    q.push(0);
    q.extend_from_slice(&qtype.to_be_bytes());
    q.extend_from_slice(&[0, 1]);
    q
}

/// A record (§4.1.3) owned by the question's name (a pointer to offset 12), class IN.
fn record(rtype: u16, ttl: u32, rdata: &[u8]) -> Vec<u8> {
    let mut r = vec![0xc0, 12];
    r.extend_from_slice(&rtype.to_be_bytes());
    r.extend_from_slice(&[0, 1]);
    r.extend_from_slice(&ttl.to_be_bytes());
    r.extend_from_slice(&(rdata.len() as u16).to_be_bytes());
    r.extend_from_slice(rdata);
    r
}

const WWW: &[&[u8]] = &[b"www", b"example", b"com"];

/// A standard query (RD set) for www.example.com, type A.
fn std_query() -> Vec<u8> {
    [header(0x0100, [1, 0, 0, 0]), question(WWW, 1)].concat()
}

/// A response (QR, RD, RA) to [`std_query`] with these answer records and `ar` additional
/// records (an OPT pseudo-record each, RFC 6891: root name, type 41).
fn response(answers: &[Vec<u8>], ar: u16) -> Vec<u8> {
    let mut m = header(0x8180, [1, answers.len() as u16, 0, ar]);
    m.extend(question(WWW, 1));
    m.extend(answers.concat());
    for _ in 0..ar {
        m.extend_from_slice(&[0, 0, 41, 0x10, 0, 0, 0, 0, 0, 0, 0]);
    }
    m
}

/// `dns_flags` once a UDP flow to port 53 carried these messages (`true`: from the client).
fn dns_flags(flow: &[(bool, &[u8])]) -> Option<String> {
    crate::proto::testkit::classify_meta(UDP, 53, 40000, flow, Some(Field::DnsFlags)).1
}

#[test]
fn an_answer_with_ttl_zero_gives_z() {
    let q = std_query();
    let ok = response(&[record(1, 300, &[192, 0, 2, 1])], 0);
    assert_eq!(dns_flags(&[(true, &q), (false, &ok)]), None);
    for answers in [
        vec![record(1, 0, &[192, 0, 2, 1])],
        vec![
            record(1, 300, &[192, 0, 2, 1]),
            record(1, 0, &[192, 0, 2, 2]),
        ],
    ] {
        let r = response(&answers, 0);
        assert_eq!(dns_flags(&[(true, &q), (false, &r)]).as_deref(), Some("z"));
    }
}

/// teams.pcap, frames 714 and 728: tshark reads a query for euaz.tr.teams.microsoft.com and a
/// response whose three answers (CNAME, CNAME, A) have TTLs 2976, 0 and 10.
#[test]
fn zero_ttl_from_corpus() {
    use crate::proto::testkit::hex;
    let q = hex("54aa01000001000000000000046575617a027472057465616d73096d6963726f736f667403636f6d0000010001");
    let r = hex(
        "54aa81800001000300000000046575617a027472057465616d73096d6963726f736f667403636f6d0000010001\
         c00c0005000100000ba00022046575617a027472057465616d730e747261666669636d616e61676572036e6574\
         00c0390005000100000000003012622d74722d7465616d732d65756e6f2d30350b6e6f7274686575726f706508\
         636c6f756461707005617a757265c024c067000100010000000a00043472fa7b",
    );
    assert_eq!(dns_flags(&[(true, &q), (false, &r)]).as_deref(), Some("z"));
}

/// nDPI's answer walk ends at the first PTR record it stores, or once it stored its most
/// A/AAAA addresses, when the message has no additional record: a TTL 0 after that is not read.
#[test]
fn the_answer_walk_ends_early_without_additional_records() {
    let q = std_query();
    let ptr = |ttl| record(12, ttl, b"\x04host\x07example\x00");
    let a = |ttl, i| record(1, ttl, &[192, 0, 2, i]);
    let r = response(&[ptr(0), a(60, 1)], 0);
    assert_eq!(dns_flags(&[(true, &q), (false, &r)]).as_deref(), Some("z"));
    let r = response(&[ptr(60), a(0, 1)], 0);
    assert_eq!(dns_flags(&[(true, &q), (false, &r)]), None);
    // With an additional record it goes on, but from past the PTR's target name as well as
    // past its RDLENGTH: here it reads the A record's address and the OPT record, no TTL 0.
    let r = response(&[ptr(60), a(0, 1)], 1);
    assert_eq!(dns_flags(&[(true, &q), (false, &r)]), None);
    // Addresses: the walk ends once the flow's most are stored.
    let mut answers: Vec<_> = (0..ND_MAX_ADDRS).map(|i| a(60, i)).collect();
    answers.push(a(0, 99));
    let r = response(&answers, 0);
    assert_eq!(dns_flags(&[(true, &q), (false, &r)]), None);
    let r = response(&answers, 1);
    assert_eq!(dns_flags(&[(true, &q), (false, &r)]).as_deref(), Some("z"));
}

#[test]
fn a_response_alone_is_walked_from_its_query_type() {
    let r = response(&[record(1, 0, &[192, 0, 2, 1])], 0);
    assert_eq!(dns_flags(&[(false, &r)]), None);
    // With the query seen first, the same response gives `z` (above).
}

/// A query whose header nDPI refuses (OPCODE 2, STATUS, saying one answer: neither a standard,
/// inverse or update query, nor one without records).
fn refused_query() -> Vec<u8> {
    [header(0x1000, [1, 1, 0, 0]), question(WWW, 1)].concat()
}

#[test]
fn an_invalid_header_after_the_first_message_gives_m() {
    let (q, bad) = (std_query(), refused_query());
    // First: the flow is just not DNS to nDPI.
    assert_eq!(dns_flags(&[(true, &bad)]), None);
    assert_eq!(dns_flags(&[(true, &bad), (true, &q)]), None);
    // After a query, within the five packets that follow it.
    assert_eq!(dns_flags(&[(true, &q), (true, &bad)]).as_deref(), Some("m"));
    let five: Vec<(bool, &[u8])> = [(true, &q[..]); 5]
        .into_iter()
        .chain([(true, &bad[..])])
        .collect();
    assert_eq!(dns_flags(&five).as_deref(), Some("m"));
    let six: Vec<(bool, &[u8])> = [(true, &q[..]); 6]
        .into_iter()
        .chain([(true, &bad[..])])
        .collect();
    assert_eq!(dns_flags(&six), None);
    // A response with records ends the reading; one without (NXDOMAIN, no records) does not
    // (its reply code gives `e`).
    let r = response(&[record(1, 60, &[192, 0, 2, 1])], 0);
    assert_eq!(dns_flags(&[(true, &q), (false, &r), (true, &bad)]), None);
    let nx = [header(0x8183, [1, 0, 0, 0]), question(WWW, 1)].concat();
    assert_eq!(
        dns_flags(&[(true, &q), (false, &nx), (true, &bad)]).as_deref(),
        Some("em")
    );
}

#[test]
fn an_llmnr_query_is_not_followed() {
    // RFC 4795 §2.1.1: flags 0; a named query to port 5355 ends nDPI's reading.
    let q = [header(0, [1, 0, 0, 0]), question(&[b"host"], 1)].concat();
    let bad = refused_query();
    let flow: &[(bool, &[u8])] = &[(true, &q), (true, &bad)];
    let v = crate::proto::testkit::classify_meta(UDP, 5355, 40000, flow, Some(Field::DnsFlags));
    assert_eq!(v.1, None);
}

#[test]
fn a_query_name_over_253_bytes_gives_m() {
    // 3 labels of 63 bytes (64 on the wire each) and one of `n`, then the root: 192 + n + 2.
    let name = |n: usize| -> Vec<u8> {
        let (a, b) = (vec![b'a'; 63], vec![b'b'; n]);
        question(&[&a, &a, &a, &b], 1)
    };
    let q = |n| [header(0x0100, [1, 0, 0, 0]), name(n)].concat();
    let (q253, q254) = (q(59), q(60));
    assert_eq!(q254.len() - 12 - 4, 254);
    assert_eq!(dns_flags(&[(true, &q253)]), None);
    assert_eq!(dns_flags(&[(true, &q254)]).as_deref(), Some("m"));
    // In a later message, and in a response's question too.
    let std = std_query();
    assert_eq!(
        dns_flags(&[(true, &std), (true, &q254)]).as_deref(),
        Some("m")
    );
    let mut r = header(0x8180, [1, 1, 0, 0]);
    r.extend(name(60));
    r.extend(record(1, 60, &[192, 0, 2, 1]));
    assert_eq!(dns_flags(&[(false, &r)]).as_deref(), Some("m"));
}

#[test]
fn a_question_without_its_type_or_with_type_zero_gives_m() {
    let q = std_query();
    assert_eq!(
        dns_flags(&[(true, &q[..q.len() - 2])]).as_deref(),
        Some("m")
    );
    let zero = [header(0x0100, [1, 0, 0, 0]), question(WWW, 0)].concat();
    assert_eq!(dns_flags(&[(true, &zero)]).as_deref(), Some("m"));
    // A second question cut short.
    let mut two = [header(0x0100, [2, 0, 0, 0]), question(WWW, 1)].concat();
    two.extend_from_slice(&[0xc0, 12, 0, 28]);
    assert_eq!(dns_flags(&[(true, &two)]).as_deref(), Some("m"));
}

/// fuzz-2006-06-26-2594.pcap, frame 600 (client port 2813): a query whose fourth label length
/// (0x13) runs the name to the message's last byte but one; tshark: "Malformed Packet". That
/// label's 19 bytes ("127", 0x07, "in-ad`r", ...) fit before the message's end: nDPI copies
/// them, control byte and '`' included, so the characters are invalid too.
#[test]
fn a_cut_question_from_corpus() {
    let q = crate::tests::parse_hex(
        "a003000000010000000000000131013001301331323707696e2d61646072046172706100000c0001",
    );
    assert_eq!(dns_flags(&[(true, &q)]).as_deref(), Some("im"));
}

#[test]
fn a_byte_other_than_letter_digit_dash_underscore_gives_i() {
    let q = |labels: &[&[u8]]| [header(0x0100, [1, 0, 0, 0]), question(labels, 1)].concat();
    for ok in [
        &[&b"_sip"[..], b"_udp", b"example", b"com"][..],
        &[b"a-b", b"C0"],
        &[],
    ] {
        assert_eq!(dns_flags(&[(true, &q(ok))]), None, "{ok:?}");
    }
    // The dot is a label separator on the wire, not a byte of a label.
    for bad in [
        &[&b"a b"[..], b"com"][..],
        &[b"a.b"],
        &[b"x", b"caf\xc3\xa9"],
        &[b"ctl\x07"],
        &[b"host:53"],
    ] {
        assert_eq!(
            dns_flags(&[(true, &q(bad))]).as_deref(),
            Some("i"),
            "{bad:?}"
        );
    }
    // In a later query, and in a response's question.
    let std = std_query();
    let bad = q(&[b"o k"]);
    assert_eq!(
        dns_flags(&[(true, &std), (true, &bad)]).as_deref(),
        Some("i")
    );
    let mut r = header(0x8180, [1, 1, 0, 0]);
    r.extend(question(&[b"o k"], 1));
    r.extend(record(1, 60, &[192, 0, 2, 1]));
    assert_eq!(
        dns_flags(&[(true, &std), (false, &r)]).as_deref(),
        Some("i")
    );
    // Not once nDPI's reading ended (a response with records).
    let ok = response(&[record(1, 60, &[192, 0, 2, 1])], 0);
    assert_eq!(dns_flags(&[(true, &std), (false, &ok), (true, &bad)]), None);
}

#[test]
fn only_the_bytes_ndpi_copies_are_checked() {
    // A compressed first label: nothing copied.
    let mut m = header(0x0100, [1, 0, 0, 0]);
    m.extend_from_slice(&[0xc0, 12, 0, 1, 0, 1]);
    assert_eq!(dns_flags(&[(true, &m)]), None);
    // A label copied, then one that is compressed: the name is dropped, not the verdict.
    let mut m = header(0x0100, [1, 0, 0, 0]);
    m.extend_from_slice(b"\x03a b\xc0\x0c\x00\x01\x00\x01");
    assert_eq!(dns_flags(&[(true, &m)]).as_deref(), Some("i"));
    // A label running past the message's end is not copied (20 bytes: the probe's least).
    let mut m = header(0x0100, [1, 0, 0, 0]);
    m.extend_from_slice(b"\x10a bcdef");
    assert_eq!(dns_flags(&[(true, &m)]).as_deref(), Some("m"));
    // At most 255 characters: four labels of 63 and their dots fill them, a fifth is not read
    // (the name, 259 bytes on the wire, is malformed all the same).
    let a: &[u8] = &[b'a'; 63];
    let q = |last: &[u8]| {
        [
            header(0x0100, [1, 0, 0, 0]),
            question(&[a, a, a, a, last], 1),
        ]
        .concat()
    };
    assert_eq!(dns_flags(&[(true, &q(b"$"))]).as_deref(), Some("m"));
    let mut early = q(b"b");
    early[13] = b'$';
    assert_eq!(dns_flags(&[(true, &early)]).as_deref(), Some("im"));
}

#[test]
fn mdns_names_are_not_checked() {
    // RFC 6762 §18: flags 0 in a query; a service instance name may hold spaces.
    let q = [
        header(0, [1, 0, 0, 0]),
        question(&[b"My Printer", b"_ipp", b"_tcp", b"local"], 255),
    ]
    .concat();
    let on = |port| {
        crate::proto::testkit::classify_meta(UDP, port, 40000, &[(true, &q)], Some(Field::DnsFlags))
            .1
    };
    assert_eq!(on(5353), None);
    assert_eq!(on(53).as_deref(), Some("i"));
    assert_eq!(on(5355).as_deref(), Some("i"));
}

/// fuzz-2006-06-26-2594.pcap, frames 239, 243 and 244 (client port 2750): a query for
/// _sip._udp.voip.brujula.net, then one with flags 0x01aa and 43690 questions and answers
/// (tshark: "Malformed Packet"; nDPI refuses its header), then one for "_sip._udp.vo%s"
/// (tshark). The damaged message does not end nDPI's reading: the third one's '%' counts.
#[test]
fn a_refused_message_does_not_end_the_reading() {
    let p = crate::tests::parse_hex;
    let q = p(
        "3fc801000001000000000000045f736970045f75647004766f6970076272756a756c61036e65740000210001",
    );
    let mut bad = p("3fc801aa");
    bad.resize(44, 0xaa);
    let pct = p(
        "3fc801040001000000000000045f736970045f75647004766f2573006272756a756c61036e65740000210001",
    );
    assert_eq!(dns_flags(&[(true, &q), (true, &bad)]).as_deref(), Some("m"));
    let flow: &[(bool, &[u8])] = &[(true, &q), (true, &q), (true, &bad), (true, &pct)];
    assert_eq!(dns_flags(flow).as_deref(), Some("im"));
}

#[test]
fn a_response_with_a_reply_code_gives_e() {
    let q = std_query();
    // RFC 1035 §4.1.1: RCODE 3, name error, no records; RCODE 0 does not count.
    let nx = [header(0x8183, [1, 0, 0, 0]), question(WWW, 1)].concat();
    assert_eq!(dns_flags(&[(true, &q), (false, &nx)]).as_deref(), Some("e"));
    assert_eq!(dns_flags(&[(false, &nx)]).as_deref(), Some("e"));
    let ok = response(&[record(1, 60, &[192, 0, 2, 1])], 0);
    assert_eq!(dns_flags(&[(true, &q), (false, &ok)]), None);
    // A query's RCODE bits are not read.
    let qr = [header(0x0003, [1, 0, 0, 0]), question(WWW, 1)].concat();
    assert_eq!(dns_flags(&[(true, &qr)]), None);
    // A response is what QR says, whichever way it goes, header damaged or not.
    assert_eq!(dns_flags(&[(true, &nx)]).as_deref(), Some("e"));
    // Not once nDPI's reading ended.
    assert_eq!(dns_flags(&[(true, &q), (false, &ok), (false, &nx)]), None);
}

/// fuzz-2006-06-26-2594.pcap, frame 615 (client port 2815, sent to the server): ID 0x8905,
/// flags 0xaaaa, the rest 0xaa; tshark: a response, reply code 10 (NOTZONE), "Malformed
/// Packet".
#[test]
fn a_fuzzed_response_from_corpus() {
    let mut m = crate::tests::parse_hex("8905aaaa");
    m.resize(40, 0xaa);
    assert_eq!(dns_flags(&[(true, &m)]).as_deref(), Some("em"));
}

/// The letters, in their (alphabetical) order.
#[test]
fn both_flags_in_order() {
    let (q, bad) = (std_query(), refused_query());
    let r = response(&[record(1, 0, &[192, 0, 2, 1])], 0);
    let flow: &[(bool, &[u8])] = &[(true, &q), (false, &r), (true, &bad)];
    assert_eq!(dns_flags(flow).as_deref(), Some("z"));
    let flow: &[(bool, &[u8])] = &[(true, &q), (true, &bad), (false, &r)];
    assert_eq!(dns_flags(flow).as_deref(), Some("mz"));
    // A SERVFAIL with a TTL 0 answer, after a query with a bad character and a refused one.
    let odd = [header(0x0100, [1, 0, 0, 0]), question(&[b"a$"], 1)].concat();
    let mut fail = response(&[record(1, 0, &[192, 0, 2, 1])], 0);
    fail[3] = 0x82;
    let flow: &[(bool, &[u8])] = &[(true, &odd), (true, &bad), (false, &fail)];
    assert_eq!(dns_flags(flow).as_deref(), Some("eimz"));
}

/// Over TCP the two-byte length comes first (RFC 1035 §4.2.2).
#[test]
fn over_tcp() {
    let x: &[u8] = &[b'x'; 63];
    let q = [header(0x0100, [1, 0, 0, 0]), question(&[x; 4], 1)].concat();
    let mut m = (q.len() as u16).to_be_bytes().to_vec();
    m.extend(q);
    let flow: &[(bool, &[u8])] = &[(true, &m)];
    let v = crate::proto::testkit::classify_meta(TCP, 53, 40000, flow, Some(Field::DnsFlags));
    assert_eq!(v.1.as_deref(), Some("m"));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Any messages, on any of the DNS ports, either way: no panic, and only `e`, `i`, `m`
    /// and `z`, each once, in that order.
    #[test]
    fn flags_of_any_messages(
        msgs in proptest::collection::vec(
            (any::<bool>(), proptest::collection::vec(any::<u8>(), 0..300)), 1..9),
        port in prop_oneof![Just(53u16), Just(5353), Just(5355)],
        tcp in any::<bool>(),
        answers in 0u16..40,
    ) {
        let mut msgs = msgs;
        // One plausible response among them, with random records after its question.
        let mut r = response(&[], 0);
        r[7] = answers as u8;
        r.extend_from_slice(&msgs[0].1);
        msgs.push((false, r));
        let flow: Vec<(bool, &[u8])> = msgs.iter().map(|(c, m)| (*c, &m[..])).collect();
        let t = if tcp { TCP } else { UDP };
        let (_, v) = crate::proto::testkit::classify_meta(t, port, 40000, &flow, Some(Field::DnsFlags));
        let v = v.unwrap_or_default();
        let order = |w: &[u8]| w.windows(2).all(|p| p[0] < p[1]);
        prop_assert!(v.len() <= 4 && v.bytes().all(|c| b"eimz".contains(&c)) && order(v.as_bytes()), "{v}");
    }
}

/// What tunnels and VPNs carry on the DNS port is theirs. openvpn.pcap's first packets (client
/// 192.168.75.18:60201, P_CONTROL_HARD_RESET_CLIENT_V2, the server's reset, the client's
/// ACK) read as a DNS header and a question of class 0x0000: with the corpus's ports moved to
/// 53 (`scripts/ports_moved.py --to 53`) the flow was DNS, as were 600 SLP flows, TLS, QUIC,
/// WireGuard and MySQL ones; it is OpenVPN's.
#[test]
fn other_protocols_on_the_dns_port_are_theirs() {
    let hex = crate::tests::parse_hex;
    let (a, b, c) = (
        hex("38334857703d96db390000000000"),
        hex("40d31c3a6964602fa00100000000334857703d96db3900000000"),
        hex("28334857703d96db390100000000d31c3a6964602fa0"),
    );
    let flow = [(true, &a[..]), (false, &b[..]), (true, &c[..])];
    assert_eq!(crate::proto::testkit::classify(UDP, 443, 60201, &flow), Some("OpenVPN"));
    assert_eq!(crate::proto::testkit::classify(UDP, 53, 60201, &flow), Some("OpenVPN"));
}

/// On the DNS ports a first question of a class no resolver uses (or of type 0) leaves the
/// flow Unsure, not DNS; a later message that reads as DNS names it. Off them it is refused.
#[test]
fn a_question_of_no_class_is_unsure_on_the_dns_port() {
    // A query for example.org A IN, then the same with class 0x0303.
    let good = crate::tests::parse_hex("123401000001000000000000076578616d706c65036f72670000010001");
    let mut bad = good.clone();
    let n = bad.len();
    bad[n - 2..].copy_from_slice(&[3, 3]);
    assert_eq!(probe(&INSPECTOR, to_server(UDP, 53), &bad).0, Probe::Unsure);
    assert_eq!(probe(&INSPECTOR, to_server(UDP, 4000), &bad).0, Probe::NotForUs);
    assert_eq!(probe(&INSPECTOR, to_server(UDP, 53), &good).0, Probe::Certain(&DNS));
    assert_eq!(
        crate::proto::testkit::classify(UDP, 53, 40000, &[(true, &bad), (true, &good)]),
        Some("DNS")
    );
}
