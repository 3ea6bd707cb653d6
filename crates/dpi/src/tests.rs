//! Framework tests, shared helpers for the protocol tests, and property tests over every
//! registered inspector.

use super::*;
use crate::pool::slot;
use crate::proto::sig::SigSet;
use crate::schedule::{keep, Choice, Set, SET_WORDS};
use proptest::prelude::*;
use std::sync::Arc;

/// Bytes of a hex vector file under `vectors/` (lines starting with `#` name the capture).
pub(crate) fn parse_hex(text: &str) -> Vec<u8> {
    let hex: String = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .collect::<String>()
        .chars()
        .filter(|c| c.is_ascii_hexdigit())
        .collect();
    (0..hex.len() / 2)
        .map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap())
        .collect()
}

/// A vector file by name, at compile time.
macro_rules! vector {
    ($name:literal) => {
        $crate::tests::parse_hex(include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/vectors/",
            $name,
            ".hex"
        )))
    };
}
pub(crate) use vector;

/// Hints for a packet from the client to `server_port`.
pub(crate) fn to_server(transport: u8, server_port: u16) -> Hints {
    Hints {
        transport,
        server_port,
        client_port: 50000,
        dir: Dir::ToServer,
        nth: 0,
        multicast: false,
        server_ip: crate::NO_ADDR,
        client_ip: crate::NO_ADDR,
    }
}

/// An engine with the built-in rules, and the registry that names its answers.
pub(crate) fn engine(cfg: DpiConfig) -> (Dpi, Labels) {
    let mut labels = Labels::new();
    let rules = DpiRules::builtin(&mut labels).unwrap();
    (Dpi::new(cfg, Arc::new(rules)), labels)
}

/// The built-in byte signatures.
pub(crate) fn builtin_sigs() -> SigSet {
    SigSet::parse(proto::sig::BUILTIN, proto::sig::SEED).unwrap()
}

/// Run one probe on `data`; returns its answer and the metadata it wrote.
pub(crate) fn probe(ins: &Inspector, hints: Hints, data: &[u8]) -> (Probe, Meta) {
    probe_sigs(&builtin_sigs(), ins, hints, data)
}

/// [`probe`] with these signatures.
fn probe_sigs(sigs: &SigSet, ins: &Inspector, hints: Hints, data: &[u8]) -> (Probe, Meta) {
    let (r, meta, _) = probe_from(sigs, ins, hints, data, Meta::default(), StateArea::ZERO);
    (r, meta)
}

/// One probe of `ins` on `data` from a flow's `meta` and `state` (a later packet of a flow the
/// inspector chose); its answer, and the metadata and state after it.
pub(crate) fn probe_from(
    sigs: &SigSet,
    ins: &Inspector,
    hints: Hints,
    data: &[u8],
    mut meta: Meta,
    mut state: StateArea,
) -> (Probe, Meta, StateArea) {
    let mut bad = 0u64;
    let mut cx = Cx {
        hints,
        data,
        meta: &mut meta,
        state: &mut state,
        stash: None,
        more: false,
        incomplete: false,
        malformed: &mut bad,
        long: false,
        expect: &mut None,
        sigs,
        digests: &mut crate::Digests::default(),
        events: None,
        ev_more: false,
    };
    let r = (ins.probe)(&mut cx);
    (r, meta, state)
}

fn pkt(ip_proto: u8, server_port: u16, from_client: bool, seq: u32, payload: &[u8]) -> Packet<'_> {
    Packet {
        ip_proto,
        server_port,
        client_port: 50000,
        from_client,
        seq,
        multicast: false,
        server_ip: crate::NO_ADDR,
        client_ip: crate::NO_ADDR,
        payload,
        ts: 0,
        flow: 0,
        owner: 0,
    }
}

#[test]
fn registry_names_are_unique_and_fit_the_bitmap() {
    let reg = proto::REGISTRY;
    // `Ctx::chosen` stores index + 1 in a u16.
    assert!(reg.len() < MAX_INSPECTORS && reg.len() < usize::from(u16::MAX));
    for (i, a) in reg.iter().enumerate() {
        assert!(a.transports & (TCP | UDP) != 0, "{}", a.name);
        for b in &reg[i + 1..] {
            assert_ne!(a.name, b.name);
        }
    }
}

#[test]
fn the_port_alone_decides_nothing() {
    // Random bytes on port 80, 443, 53: no inspector claims them.
    let (mut d, _) = engine(DpiConfig::default());
    for port in [80u16, 443, 53, 22, 1900, 137, 123] {
        for proto in [6u8, 17] {
            let mut h = NO_HANDLE;
            let junk = [0x5au8; 64];
            assert_eq!(d.inspect(&mut h, &pkt(proto, port, true, 1, &junk)), None);
        }
    }
}

/// `watch`: the packet at which every watched inspector that could speak for a flow has turned
/// its payload away is told once; a flow a watched inspector names, or one with a watched
/// inspector still unsure, is never told.
#[test]
fn watched_inspectors_ruling_a_flow_out_are_told_once() {
    let (mut d, labels) = engine(DpiConfig::default());
    let of = |name: &str| proto::REGISTRY.iter().position(|i| i.name == name).unwrap() as u16;
    d.watch(&[of("tls"), of("http")]);
    // Text neither a TLS record nor an HTTP message opens with, on a port nothing claims.
    let mut h = NO_HANDLE;
    let text = b"HELLO peer 42\r\n";
    assert_eq!(d.inspect(&mut h, &pkt(6, 41234, true, 1, text)), None);
    assert!(d.take_watched_out());
    assert!(!d.take_watched_out(), "told once a packet");
    assert_eq!(d.inspect(&mut h, &pkt(6, 41234, false, 1, text)), None);
    assert!(!d.take_watched_out(), "told once a flow");
    // An HTTP request: named, never told.
    let mut h = NO_HANDLE;
    let req = b"GET /a HTTP/1.1\r\nHost: example.com\r\n\r\n";
    let l = d.inspect(&mut h, &pkt(6, 41234, true, 1, req));
    assert_eq!(l.map(|l| labels.get(l).master()), Some("HTTP"));
    assert!(!d.take_watched_out());
    // The start of a request that may still become one: HTTP waits, so not told.
    let mut h = NO_HANDLE;
    assert_eq!(d.inspect(&mut h, &pkt(6, 41234, true, 1, b"POS")), None);
    assert!(!d.take_watched_out());
    // Nothing watched: never told.
    let (mut d, _) = engine(DpiConfig::default());
    let mut h = NO_HANDLE;
    assert_eq!(d.inspect(&mut h, &pkt(6, 41234, true, 1, text)), None);
    assert!(!d.take_watched_out());
}

#[test]
fn a_flow_is_identified_once_and_its_metadata_stays_until_release() {
    let (mut d, labels) = engine(DpiConfig::default());
    let mut h = NO_HANDLE;
    let req = b"GET /a HTTP/1.1\r\nHost: example.com\r\nUser-Agent: t\r\n\r\n";
    let l = d.inspect(&mut h, &pkt(6, 8888, true, 100, req));
    assert_eq!(l.map(|l| labels.get(l).master()), Some("HTTP"));
    let resp = b"HTTP/1.1 404 Not Found\r\n\r\n";
    assert_eq!(d.inspect(&mut h, &pkt(6, 8888, false, 7, resp)), None);
    let m = d.meta(h).unwrap();
    assert_eq!(m.get(Field::HttpHost), Some("example.com"));
    assert_eq!(m.get(Field::Url), Some("example.com/a"));
    assert_eq!(m.get(Field::HttpStatus), Some("404"));
    d.release(&mut h);
    assert_eq!(h, DONE);
    assert_eq!(d.stats().identified, 1);
}

#[test]
fn budget_ends_inspection_and_frees_the_context() {
    let cfg = DpiConfig {
        budget: 2,
        ..DpiConfig::default()
    };
    let (mut d, _) = engine(cfg);
    let mut h = NO_HANDLE;
    // Unsure forever: a prefix of "SSH-" keeps the SSH probe asking for more.
    for i in 0..10u32 {
        d.inspect(&mut h, &pkt(6, 22, i % 2 == 0, i, b"S"));
    }
    assert_eq!(h, DONE);
    assert_eq!(d.stats().budget_spent, 1);
    assert!(d.stats().packets <= 4);
    assert_eq!(d.free.len(), 1, "the context went back to the pool");
}

#[test]
fn a_full_pool_is_counted_not_grown() {
    let cfg = DpiConfig {
        contexts: 2,
        ..DpiConfig::default()
    };
    let (mut d, _) = engine(cfg);
    let req = b"GET / HTTP/1.1\r\nHost: a\r\n\r\n";
    let mut hs = [NO_HANDLE; 3];
    for h in hs.iter_mut() {
        d.inspect(h, &pkt(6, 80, true, 1, req));
    }
    assert_eq!(d.stats().no_context, 1);
    assert_eq!(hs[2], DONE);
    assert_eq!(d.pool.len(), 2);
}

/// A full pool takes the context of the flow that has held one longest with nothing decided or
/// kept, once it has held it for `reclaim_ns`: not a flow that holds metadata (named or not),
/// not one that has held it for less, and its owner is given back once.
#[test]
fn a_full_pool_takes_only_an_undecided_context_held_long_enough() {
    let second = 1_000_000_000u64;
    let cfg = DpiConfig {
        contexts: 3,
        reclaim_ns: second,
        ..DpiConfig::default()
    };
    let (mut d, _) = engine(cfg);
    static ZEROS: [u8; 18] = [0; 18];
    let zeros = &ZEROS;
    let req = b"GET / HTTP/1.1\r\nHost: a.example\r\n\r\n";
    let at = |p: Packet<'static>, ts: u64, owner: u32| Packet { ts, owner, ..p };
    // Flow 1: an HTTP request (named, its Host kept); flow 5: a script no inspector names
    // (nothing decided, but its payload flag kept); flow 2: junk no inspector names.
    let (mut h1, mut h5, mut h2) = (NO_HANDLE, NO_HANDLE, NO_HANDLE);
    d.inspect(&mut h1, &at(pkt(6, 80, true, 1, req), 0, 1));
    d.inspect(
        &mut h5,
        &at(pkt(17, 1079, true, 0, b"#!/bin/sh\nexit 0\n"), 0, 5),
    );
    assert!(!is_done(h5), "{h5:#x}");
    assert_eq!(
        d.meta(h5).and_then(|m| m.get(Field::PayloadFlags)),
        Some("s")
    );
    // Flow 2 from 0.6 s.
    d.inspect(
        &mut h2,
        &at(pkt(17, 1080, true, 0, zeros), 6 * second / 10, 2),
    );
    assert!(
        !is_done(h2) && slot(h2).is_some(),
        "the junk flow keeps its context: {h2:#x}"
    );
    d.inspect(
        &mut h2,
        &at(pkt(17, 1080, true, 0, zeros), 7 * second / 10, 2),
    );
    // At 1.5 s none may be taken (flows 1 and 5 hold metadata, flow 2 has held its own for
    // 0.9 s only).
    let mut h3 = NO_HANDLE;
    d.inspect(
        &mut h3,
        &at(pkt(17, 1081, true, 0, zeros), 15 * second / 10, 3),
    );
    assert_eq!(
        (h3, d.stats().no_context, d.stats().reclaimed),
        (DONE, 1, 0)
    );
    assert_eq!(d.take_reclaimed(), None);
    // At 1.6 s flow 2 has held it for 1 s: flow 4 takes it.
    let mut h4 = NO_HANDLE;
    d.inspect(
        &mut h4,
        &at(pkt(17, 1082, true, 0, zeros), 16 * second / 10, 4),
    );
    assert_eq!(d.stats().reclaimed, 1);
    assert_eq!(slot(h4), slot(h2), "flow 2's context");
    assert_eq!(d.take_reclaimed(), Some(2));
    assert_eq!(d.take_reclaimed(), None, "given back once");
    let m = d.meta(h1).expect("flow 1 keeps its metadata");
    assert_eq!(m.get(Field::HttpHost), Some("a.example"));
    assert_eq!(
        d.meta(h5).and_then(|m| m.get(Field::PayloadFlags)),
        Some("s")
    );
    assert_eq!(d.pool.len(), 3, "never grown");
}

/// A ClientHello cut in two TCP segments is identified with its SNI once whole (out-of-order
/// holding is tested in `reasm`). Vector: tls_1.3_unidirectional_client.pcapng (see proto/tls).
#[test]
fn client_hello_over_two_segments_is_reassembled() {
    let hello = vector!("tls_client_hello");
    let (mut d, labels) = engine(DpiConfig::default());
    let mut h = NO_HANDLE;
    let (a, b) = hello.split_at(100);
    let l = d.inspect(&mut h, &pkt(6, 443, true, 1000, a));
    assert_eq!(
        l.map(|l| labels.get(l).master()),
        Some("TLS"),
        "a record header is enough to say TLS"
    );
    assert_eq!(d.meta(h).and_then(|m| m.get(Field::Sni)), None);
    assert_eq!(d.inspect(&mut h, &pkt(6, 443, true, 1100, b)), None);
    let m = d.meta(h).expect("metadata kept");
    assert_eq!(m.get(Field::Sni), Some("www.google.com"));
    assert_eq!(m.get(Field::Ja3c), Some("c67e9dc27d283f1f89b4ebb4b4670c21"));
    assert_eq!(d.stats().reasm.started, 1);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Every inspector, any bytes, any hints: no panic, and the metadata area stays valid.
    #[test]
    fn inspectors_never_panic(
        data in proptest::collection::vec(any::<u8>(), 0..1600),
        tcp in any::<bool>(),
        sp in prop_oneof![Just(53u16), Just(80), Just(443), Just(5353), Just(137), Just(123), any::<u16>()],
        cp in any::<u16>(),
        up in any::<bool>(),
        nth in 0u8..4,
        st in any::<[u8; STATE_BYTES]>(),
    ) {
        let sigs = builtin_sigs();
        for ins in proto::REGISTRY {
            let hints = Hints {
                transport: if tcp { TCP } else { UDP },
                server_port: sp,
                client_port: cp,
                dir: if up { Dir::ToServer } else { Dir::ToClient },
                nth,
                multicast: false,
                server_ip: crate::NO_ADDR,
                client_ip: crate::NO_ADDR,
            };
            let mut meta = Meta::default();
            let mut state = StateArea::from_bytes(st);
            let mut bad = 0;
            let mut cx = Cx { hints, data: &data, meta: &mut meta, state: &mut state, stash: None, more: false, incomplete: false, malformed: &mut bad, long: false, expect: &mut None, sigs: &sigs, digests: &mut crate::Digests::default(), events: None, ev_more: false };
            let r = (ins.probe)(&mut cx);
            if let Probe::Certain(l) = r {
                // (An empty list: labels come from a dictionary loaded at run time.)
                prop_assert!(ins.labels.is_empty() || ins.labels.iter().any(|x| std::ptr::eq(*x, l)), "{} said {}", ins.name, l.master);
            }
            // On a first look (no state yet), the filters applied before a probe never hide a
            // packet it would claim.
            let (first, _) = probe_sigs(&sigs, ins, hints, &data);
            if let Probe::Certain(_) = first {
                prop_assert!(tcp || data.len() >= usize::from(ins.min_udp), "{} below min_udp", ins.name);
                prop_assert!(!ins.ports_required || ins.on_ports(&hints), "{} off its ports", ins.name);
            }
            for (_, v) in meta.iter() {
                prop_assert!(!v.chars().any(|c| c.is_control()));
            }
        }
    }

    /// Whole-engine: arbitrary packet sequences over a few flows never panic and never hold
    /// more contexts or buffers than configured.
    #[test]
    fn engine_stays_bounded(
        pkts in proptest::collection::vec(
            (0usize..4, any::<bool>(), any::<u32>(), proptest::collection::vec(any::<u8>(), 0..300), any::<bool>()),
            0..60),
    ) {
        let cfg = DpiConfig { contexts: 3, reasm_buffers: 2, reasm_bytes: 512, ..DpiConfig::default() };
        let (mut d, _) = engine(cfg);
        let mut hs = [NO_HANDLE; 4];
        for (f, up, seq, data, tcp) in &pkts {
            let p = Packet { ip_proto: if *tcp { 6 } else { 17 }, server_port: [80, 443, 53, 22][*f], client_port: 40000, from_client: *up, seq: *seq, multicast: false, server_ip: crate::NO_ADDR, client_ip: crate::NO_ADDR, payload: data, ts: 0, flow: 0, owner: 0 };
            let _ = d.inspect(&mut hs[*f], &p);
            let _ = d.meta(hs[*f]).map(|m| m.iter().count());
        }
        prop_assert!(d.pool.len() <= 3);
        prop_assert!(d.reasm.stats.pool_full < u64::MAX);
        for h in hs.iter_mut() {
            d.release(h);
        }
    }

    /// With contexts taken from flows that held them long enough (six flows, three contexts,
    /// time moving by up to 0.8 s a packet), and each owner given back set aside as the engine does: no two flows'
    /// handles ever name one context, every owner given back held one, the pool never grows,
    /// and every context is free again once every flow is released.
    #[test]
    fn taken_contexts_are_never_shared(
        pkts in proptest::collection::vec(
            (0usize..6, any::<bool>(), 0u64..800, proptest::collection::vec(any::<u8>(), 1..40)),
            0..80),
    ) {
        let cfg = DpiConfig { contexts: 3, reclaim_ns: 1_000_000_000, ..DpiConfig::default() };
        let (mut d, _) = engine(cfg);
        let mut hs = [NO_HANDLE; 6];
        let mut ts = 0u64;
        for (f, junk, step_ms, data) in &pkts {
            ts += step_ms * 1_000_000;
            let payload: &[u8] = if *junk { &[0; 18] } else { data };
            let p = Packet { ip_proto: 17, server_port: 1080 + *f as u16, client_port: 40000, from_client: true, seq: 0, multicast: false, server_ip: crate::NO_ADDR, client_ip: crate::NO_ADDR, payload, ts, flow: *f as u64, owner: *f as u32 };
            let _ = d.inspect(&mut hs[*f], &p);
            if let Some(v) = d.take_reclaimed() {
                let v = v as usize;
                prop_assert!(v != *f && slot(hs[v]).is_some(), "owner {v} held none");
                hs[v] = DONE;
            }
            let mut held: Vec<usize> = hs.iter().filter_map(|&h| slot(h)).collect();
            let n = held.len();
            held.sort_unstable();
            held.dedup();
            prop_assert_eq!(held.len(), n, "a context named by two flows: {:?}", hs);
            prop_assert!(d.pool.len() <= 3);
        }
        for h in hs.iter_mut() {
            d.release(h);
        }
        prop_assert_eq!(d.free.len(), d.pool.len());
    }
}

/// A QUIC ClientHello over two Initial packets, the second sent to a new connection id but
/// protected with the first's keys. quic_frags_different_dcid.pcapng frames 1 and 3; tshark: SNI
/// cdnjs.cloudflare.com; nDPI's JA4 hashes 55b375c5d22e and 5a1f323ef56d.
#[test]
fn quic_client_hello_over_two_initials() {
    let (mut d, labels) = engine(DpiConfig::default());
    let mut h = NO_HANDLE;
    let one = vector!("quic_split_1");
    let three = vector!("quic_split_3");
    let p = |b| Packet {
        ip_proto: 17,
        server_port: 443,
        client_port: 37229,
        from_client: true,
        seq: 0,
        multicast: false,
        server_ip: crate::NO_ADDR,
        client_ip: crate::NO_ADDR,
        payload: b,
        ts: 0,
        flow: 0,
        owner: 0,
    };
    assert_eq!(
        d.inspect(&mut h, &p(&one)).map(|l| labels.get(l).master()),
        Some("QUIC")
    );
    assert_eq!(d.meta(h).and_then(|m| m.get(Field::Ja4)), None);
    d.inspect(&mut h, &p(&three));
    let m = d.meta(h).unwrap();
    assert_eq!(m.get(Field::Sni), Some("cdnjs.cloudflare.com"));
    let ja4 = m.get(Field::Ja4).unwrap();
    assert!(ja4.ends_with("_55b375c5d22e_5a1f323ef56d"), "{ja4}");
    assert_eq!(m.get(Field::TlsVersion), Some("TLSv1.3"));
}

/// A field subscriber hears each subscribed field once, with the value the record holds; other
/// fields are not reported. Expected values written by hand from the request bytes.
#[test]
fn a_subscriber_hears_the_url_and_the_dns_name() {
    use std::sync::{Arc, Mutex};
    let got: Arc<Mutex<Vec<(Field, String)>>> = Arc::default();
    let (mut d, _) = engine(DpiConfig::default());
    let g = got.clone();
    d.subscribe(&[Field::Url, Field::DnsQuery], move |f, v| {
        g.lock().unwrap().push((f, v.to_string()));
    });
    let mut h = NO_HANDLE;
    let req = b"GET /a HTTP/1.1\r\nHost: example.com\r\nUser-Agent: t\r\n\r\n";
    d.inspect(&mut h, &pkt(6, 8888, true, 100, req));
    d.inspect(&mut h, &pkt(6, 8888, false, 7, b"HTTP/1.1 200 OK\r\n\r\n"));
    // A DNS query for www.example.org, type A (RFC 1035 layout, built by hand).
    let mut q = vec![0x12, 0x34, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0];
    q.extend_from_slice(b"\x03www\x07example\x03org\x00\x00\x01\x00\x01");
    let mut h2 = NO_HANDLE;
    d.inspect(&mut h2, &pkt(17, 53, true, 0, &q));
    assert_eq!(
        *got.lock().unwrap(),
        vec![
            (Field::Url, "example.com/a".to_string()),
            (Field::DnsQuery, "www.example.org".to_string()),
        ]
    );
}

/// The server certificate's names (http_ipv6.pcap, frame 94: a warning alert, the ServerHello
/// and the Certificate's start, cut here in two segments before the subject ends). Expected:
/// tshark -V on the capture, the first certificate's rdnSequence items (id-at-commonName=
/// shop.ntop.org, id-at-organizationalUnitName=PositiveSSL, id-at-organizationalUnitName=Domain
/// Control Validated; the issuer's COMODO RSA Domain Validation Secure Server CA, COMODO CA
/// Limited, Salford, Greater Manchester, GB), in RFC 4514 order.
#[test]
fn server_certificate_names_over_two_segments_and_the_cap() {
    let flight = vector!("tls_server_flight_94");
    let hello = vector!("tls_client_hello");
    let (a, b) = flight.split_at(300);
    let (mut d, _) = engine(DpiConfig::default());
    let mut h = NO_HANDLE;
    d.inspect(&mut h, &pkt(6, 443, true, 1, &hello));
    d.inspect(&mut h, &pkt(6, 443, false, 5000, a));
    let m = d.meta(h).expect("metadata kept");
    assert_eq!(
        m.get(Field::TlsVersion),
        Some("TLSv1.2"),
        "ServerHello read"
    );
    assert_eq!(m.get(Field::TlsCertSubject), None);
    d.inspect(&mut h, &pkt(6, 443, false, 5300, b));
    let m = d.meta(h).expect("metadata kept");
    assert_eq!(
        m.get(Field::TlsCertSubject),
        Some("CN=shop.ntop.org,OU=PositiveSSL,OU=Domain Control Validated")
    );
    assert_eq!(
        m.get(Field::TlsCertIssuer),
        Some(
            "CN=COMODO RSA Domain Validation Secure Server CA,O=COMODO CA Limited,L=Salford,\
             ST=Greater Manchester,C=GB"
        )
    );
    assert_eq!(d.stats().reasm.caps_hit(), 0);
    // The same with reassembly buffers too small for the names: counted, the fields stay empty.
    let (mut d, _) = engine(DpiConfig {
        reasm_bytes: 256,
        ..DpiConfig::default()
    });
    let mut h = NO_HANDLE;
    d.inspect(&mut h, &pkt(6, 443, true, 1, &hello));
    d.inspect(&mut h, &pkt(6, 443, false, 5000, a));
    d.inspect(&mut h, &pkt(6, 443, false, 5300, b));
    let m = d.meta(h).expect("metadata kept");
    assert_eq!(m.get(Field::TlsCertSubject), None);
    assert!(d.stats().reasm.overflow > 0);
}

/// DTLS: the server's Certificate in fragments of 140 and 231 bytes within one datagram
/// (dtls_certificate_fragments.pcap, frame 23), gathered in the flow's stash. Expected: tshark
/// on the capture (subject id-at-commonName=*.discord.gg; issuer Sectigo RSA Domain Validation
/// Secure Server CA, Sectigo Limited, Salford, Greater Manchester, GB).
#[test]
fn dtls_certificate_from_fragments() {
    let flight = vector!("dtls_server_flight_23");
    let hello = vector!("dtls_client_hello");
    let (mut d, labels) = engine(DpiConfig::default());
    let mut h = NO_HANDLE;
    let l = d.inspect(&mut h, &pkt(17, 50001, true, 0, &hello));
    assert_eq!(l.map(|l| labels.get(l).master()), Some("DTLS"));
    d.inspect(&mut h, &pkt(17, 50001, false, 0, &flight));
    let m = d.meta(h).expect("metadata kept");
    assert_eq!(m.get(Field::TlsCertSubject), Some("CN=*.discord.gg"));
    assert_eq!(
        m.get(Field::TlsCertIssuer),
        Some(
            "CN=Sectigo RSA Domain Validation Secure Server CA,O=Sectigo Limited,L=Salford,\
             ST=Greater Manchester,C=GB"
        )
    );
}

/// The registry set spans as many words as the registry needs: indices on both sides of each
/// word boundary survive the set operations and come out lowest first, and an index past the
/// set is refused.
#[test]
fn inspector_sets_cross_word_boundaries() {
    let bits = SET_WORDS * 64;
    assert!(proto::REGISTRY.len() <= bits && bits <= MAX_INSPECTORS);
    let mut idx: Vec<usize> = (0..SET_WORDS).flat_map(|w| [w * 64, w * 64 + 63]).collect();
    idx.push(100);
    idx.sort();
    let mut s = Set::EMPTY;
    for &i in &idx {
        s |= Set::one(i);
    }
    assert_eq!(Set::one(bits), Set::EMPTY);
    let odd = Set::one(63) | Set::one(bits - 1);
    let mut rest = s & !odd;
    let mut out = Vec::new();
    while let Some(i) = rest.pop() {
        out.push(i);
    }
    let want: Vec<usize> = idx
        .iter()
        .copied()
        .filter(|&i| i != 63 && i != bits - 1)
        .collect();
    assert_eq!(out, want);
    assert!(rest.is_empty());
    assert_eq!(s & odd, odd);
}

/// What [`Choice::select`] must answer, read off the registry's fields one inspector at a time:
/// the inspectors of the packet's transport that either name one of its ports or need none,
/// less (for UDP) those whose fixed header is longer than the payload, which are `short`.
fn select_by_definition(transport: u8, a: u16, b: u16, len: usize) -> (Set, Set, Set) {
    let (mut allowed, mut hinted, mut short) = (Set::EMPTY, Set::EMPTY, Set::EMPTY);
    for (i, ins) in proto::REGISTRY.iter().enumerate() {
        let names = ins.ports.contains(&a) || ins.ports.contains(&b);
        if names {
            hinted |= Set::one(i);
        }
        if ins.transports & transport == 0 || (ins.ports_required && !names) {
            continue;
        }
        if transport == UDP && usize::from(ins.min_udp) > len {
            short |= Set::one(i);
        } else {
            allowed |= Set::one(i);
        }
    }
    (allowed, hinted, short)
}

/// Ports some inspector names, and ports next to them.
fn port() -> impl Strategy<Value = u16> {
    let named: Vec<u16> = proto::REGISTRY
        .iter()
        .flat_map(|i| i.ports.iter().copied())
        .collect();
    prop_oneof![
        any::<u16>(),
        proptest::sample::select(named.clone()),
        (proptest::sample::select(named), -1i32..=1).prop_map(|(p, d)| (i32::from(p) + d) as u16),
    ]
}

proptest! {
    #[test]
    fn select_follows_the_registry(
        tcp in any::<bool>(),
        a in port(),
        b in port(),
        len in prop_oneof![0usize..300, any::<usize>()],
    ) {
        let transport = if tcp { TCP } else { UDP };
        let sel = Choice::new().select(transport, a, b, len);
        let (allowed, hinted, short) = select_by_definition(transport, a, b, len);
        prop_assert_eq!(sel.transport, allowed);
        prop_assert_eq!(sel.hinted, hinted);
        prop_assert_eq!(sel.short, short);
    }
}

#[test]
fn select_cuts_udp_at_each_minimum_length() {
    // Every minimum length and the lengths either side, on the ports that need them.
    for ins in proto::REGISTRY.iter().filter(|i| i.min_udp > 0) {
        let p = ins.ports.first().copied().unwrap_or(0);
        for len in [
            0,
            usize::from(ins.min_udp) - 1,
            usize::from(ins.min_udp),
            65_535,
        ] {
            let sel = Choice::new().select(UDP, p, 40_000, len);
            let (allowed, hinted, short) = select_by_definition(UDP, p, 40_000, len);
            assert_eq!(
                (sel.transport, sel.hinted, sel.short),
                (allowed, hinted, short)
            );
        }
    }
}

/// Unsure candidates' evidence: kept in a free slot, replaced in its own, freed when it is
/// all zero again, and dropped and counted when every slot is taken.
#[test]
fn pending_evidence_slots() {
    let mut pending = [(0u16, StateArea::ZERO); PENDING];
    let mut dropped = 0;
    let a = StateArea::from_bytes([1; STATE_BYTES]);
    let b = StateArea::from_bytes([2; STATE_BYTES]);
    keep(&mut pending, None, 5, &a, &mut dropped);
    keep(&mut pending, None, 9, &b, &mut dropped);
    assert_eq!(pending, [(5, a), (9, b)]);
    keep(&mut pending, None, 12, &a, &mut dropped);
    assert_eq!(dropped, 1);
    keep(&mut pending, Some(1), 9, &a, &mut dropped);
    assert_eq!(pending[1], (9, a));
    keep(&mut pending, Some(0), 5, &StateArea::ZERO, &mut dropped);
    assert_eq!(pending[0], (0, StateArea::ZERO));
    keep(&mut pending, None, 12, &b, &mut dropped);
    assert_eq!(pending[0], (12, b));
    assert_eq!(dropped, 1);
}

/// nDPI's checks on the first payloads of an unnamed flow: a PE image needs `PE\0\0` where
/// the MZ header's offset at 0x3c points; an ELF header its version byte up to 6; a script
/// `#!/` or `#! ` (shell.pcap's payloads start `#!/bin/sh`, tshark).
#[test]
fn payload_signatures() {
    let mut pe = vec![0u8; 0x80];
    pe[..2].copy_from_slice(b"MZ");
    pe[0x3c] = 0x40;
    pe[0x40..0x44].copy_from_slice(b"PE\0\0");
    assert_eq!(crate::payload_signature(&pe), b'e');
    pe[0x3c] = 0x7e; // points past the end minus 2: no room for the signature
    assert_eq!(crate::payload_signature(&pe), 0);
    pe[0x3c] = 0xff;
    pe[0x3d] = 0xff;
    pe[0x3e] = 0xff;
    pe[0x3f] = 0xff;
    assert_eq!(crate::payload_signature(&pe), 0, "an offset past the end");
    let mut elf = vec![0u8; 24];
    elf[..4].copy_from_slice(b"\x7fELF");
    elf[6] = 1;
    assert_eq!(crate::payload_signature(&elf), b'e');
    elf[6] = 7;
    assert_eq!(crate::payload_signature(&elf), 0);
    assert_eq!(crate::payload_signature(&elf[..23]), 0);
    assert_eq!(
        crate::payload_signature(b"#!/bin/sh\n\n# Action script"),
        b's'
    );
    assert_eq!(crate::payload_signature(b"#! /usr/bin/env python"), b's');
    assert_eq!(crate::payload_signature(b"#!"), 0);
    assert_eq!(crate::payload_signature(b"MZ"), 0);
}

/// Issue 33: a NUL in a user signature's label came back as a label-registry error, which the
/// command line could tie to no file and which named no line; it is a signature error now.
#[test]
fn a_bad_label_in_user_signatures_is_a_signature_error_with_its_line() {
    let mut labels = Labels::new();
    let e = DpiRules::new(
        &mut labels,
        Some("# mine\nGood Web tcp \"ok\"\nBa\0d Web tcp \"x\"\n"),
        None,
    )
    .unwrap_err();
    match e {
        RulesError::Signatures(m) => assert!(m.starts_with("signatures line 3: "), "{m}"),
        other => panic!("{other:?}"),
    }
}
