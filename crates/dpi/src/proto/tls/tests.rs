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

/// Without the hashes (`DpiConfig::fingerprints` off): `0` digits of the same lengths, JA4's
/// first part (which the risks read) and every other field as with them.
#[test]
fn fingerprints_off_keep_lengths_and_the_rest() {
    let v = vector!("tls_client_hello");
    let (mut on, mut off) = (Meta::default(), Meta::default());
    off.no_hash = true;
    let mut digests = Digests::default();
    assert_eq!(hello_in_record(&v, &mut on, &mut digests), Some(true));
    assert_eq!(hello_in_record(&v, &mut off, &mut digests), Some(true));
    assert_eq!(off.get(Field::Ja3c), Some("0".repeat(32).as_str()));
    assert_eq!(
        off.get(Field::Ja4),
        Some("t13d1713h1_000000000000_000000000000")
    );
    let all = |m: &Meta| -> Vec<(Field, String)> {
        m.iter().map(|(f, v)| (f, v.to_string())).collect()
    };
    let (a, b) = (all(&on), all(&off));
    assert_eq!(a.len(), b.len());
    for ((f, x), (g, y)) in a.iter().zip(&b) {
        assert_eq!(f, g);
        assert_eq!(x.len(), y.len());
        if !matches!(f, Field::Ja3c | Field::Ja4) {
            assert_eq!(x, y);
        }
    }
}

/// A ClientHello seen again is answered from the worker's memo: the same JA3 and JA4 as
/// digested afresh (the hashes are checked against tshark and nDPI above), with no digest
/// computed; a memo that already holds other texts answers as a fresh one does.
#[test]
fn fingerprints_from_the_memo_are_the_digests() {
    let v = vector!("tls_client_hello");
    let mut digests = Digests::default();
    let (mut first, mut again) = (Meta::default(), Meta::default());
    assert_eq!(hello_in_record(&v, &mut first, &mut digests), Some(true));
    let misses = (digests.ja3.misses, digests.ja4.misses);
    assert_eq!(misses, (1, 2));
    assert_eq!((digests.hello.hits, digests.hello.misses), (0, 1));
    assert_eq!(hello_in_record(&v, &mut again, &mut digests), Some(true));
    // Found by its lists: no text built, no digest memo asked.
    assert_eq!((digests.hello.hits, digests.hello.misses), (1, 1));
    assert_eq!((digests.ja3.misses, digests.ja4.misses), misses);
    assert_eq!((digests.ja3.hits, digests.ja4.hits), (0, 0));
    for f in [Field::Ja3c, Field::Ja4] {
        assert_eq!(first.get(f), again.get(f));
    }
    assert_eq!(
        again.get(Field::Ja3c),
        Some("c67e9dc27d283f1f89b4ebb4b4670c21")
    );
    // Other ClientHellos' texts and lists in the memos first.
    let mut busy = Digests::default();
    for k in 0..500u32 {
        let t = format!("{k:x},1301,1302");
        busy.ja4.get(t.as_bytes(), |_| *b"ffffffffffff");
        busy.ja3.get(t.as_bytes(), |_| [b'f'; 32]);
        busy.hello.get(t.as_bytes(), |_| [b'f'; super::FP_LEN]);
    }
    let mut third = Meta::default();
    assert_eq!(hello_in_record(&v, &mut third, &mut busy), Some(true));
    for f in [Field::Ja3c, Field::Ja4] {
        assert_eq!(first.get(f), third.get(f));
    }
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

/// `server_cert` reads one handshake record in place; the joined path must give the same answer
/// and the same names for any stream: the server flight of http_ipv6.pcap frame 94 (see
/// `server_certificate_names_over_two_segments_and_the_cap`) re-cut into records of any sizes,
/// followed by a record of any type, cut anywhere; and arbitrary bytes.
mod in_place_equals_joined {
    use super::*;
    use proptest::prelude::*;

    /// The answer and the names `read` gives for `d`.
    fn names(read: fn(&[u8], &mut Meta) -> Step, d: &[u8]) -> (Step, Option<String>, Option<String>) {
        let mut m = Meta::default();
        let s = read(d, &mut m);
        let f = |x| m.get(x).map(str::to_string);
        (s, f(Field::TlsCertSubject), f(Field::TlsCertIssuer))
    }

    fn joined(d: &[u8]) -> (Step, Option<String>, Option<String>) {
        names(server_cert_joined, d)
    }

    fn in_place(d: &[u8]) -> (Step, Option<String>, Option<String>) {
        names(server_cert, d)
    }

    /// The handshake bytes of the flight (its records of type 22, joined).
    fn handshake() -> Vec<u8> {
        let flight = vector!("tls_server_flight_94");
        let (mut hs, mut at) = (vec![], 0);
        while at + 5 <= flight.len() {
            let n = u16::from_be_bytes([flight[at + 3], flight[at + 4]]) as usize;
            let end = (at + 5 + n).min(flight.len());
            if flight[at] == 22 {
                hs.extend_from_slice(&flight[at + 5..end]);
            }
            at = end;
        }
        hs
    }

    #[test]
    fn the_flight_names_a_certificate() {
        let hs = handshake();
        let mut d = vec![22, 3, 3];
        d.extend_from_slice(&(hs.len() as u16).to_be_bytes());
        d.extend_from_slice(&hs);
        let (_, subject, _) = in_place(&d);
        assert!(subject.is_some_and(|s| s.starts_with("CN=shop.ntop.org")));
        assert_eq!(in_place(&d), joined(&d));
    }

    proptest! {
        #[test]
        fn recut_flights(
            cuts in proptest::collection::vec(1usize..1500, 1..6),
            tail in proptest::option::of((any::<u8>(), 0usize..8)),
            keep in any::<proptest::sample::Index>(),
            upto in proptest::option::of(any::<proptest::sample::Index>()),
        ) {
            // All of the flight's handshake bytes, or only its messages before a boundary.
            let mut hs = handshake();
            if let Some(i) = upto {
                let mut ends = vec![0];
                while let Some(h) = hs.get(*ends.last().unwrap()..).filter(|h| h.len() >= 4) {
                    let n = u32::from_be_bytes([0, h[1], h[2], h[3]]) as usize;
                    ends.push((ends.last().unwrap() + 4 + n).min(hs.len()));
                }
                hs.truncate(ends[i.index(ends.len())]);
            }
            let mut d = vec![];
            let mut at = 0;
            for (i, c) in cuts.iter().enumerate() {
                let n = if i + 1 == cuts.len() { hs.len() - at } else { (*c).min(hs.len() - at) };
                d.extend_from_slice(&[22, 3, 3]);
                d.extend_from_slice(&(n as u16).to_be_bytes());
                d.extend_from_slice(&hs[at..at + n]);
                at += n;
            }
            if let Some((t, n)) = tail {
                d.extend_from_slice(&[t, 3, 3, 0, 1, 0xff][..n.min(6)]);
            }
            d.truncate(keep.index(d.len() + 1));
            prop_assert_eq!(in_place(&d), joined(&d));
        }

        #[test]
        fn arbitrary_bytes(
            mut d in proptest::collection::vec(any::<u8>(), 0..256),
            handshake_first in any::<bool>(),
        ) {
            if handshake_first && !d.is_empty() {
                d[0] = 22;
            }
            prop_assert_eq!(in_place(&d), joined(&d));
        }
    }
}

/// DNS over TLS: knot's `kdig +tls` (netcap's `dot` scenario) offers ALPN `dot` and no SNI;
/// the connection is TLS.DoH_DoT on any port, and a hello offering other protocols (the corpus
/// vector's http/1.1) is plain TLS on port 853 too (the port alone is the port table's guess,
/// not the inspector's).
#[test]
fn alpn_dot_is_dns_over_tls_on_any_port() {
    let v = vector!("tls_client_hello_dot");
    for port in [853, 443, 40853] {
        let (r, m) = probe(&INSPECTOR, to_server(TCP, port), &v);
        assert_eq!(r, Probe::Certain(&DOT), "port {port}");
        assert_eq!(m.get(Field::Alpn), Some("dot"));
        assert!(m.get(Field::Sni).is_none());
    }
    let (r, _) = probe(&INSPECTOR, to_server(TCP, 853), &vector!("tls_client_hello"));
    assert_eq!(r, Probe::Certain(&LABEL));
}

/// Which ALPN offers are DNS: `dot`, `doq` and RFC 9250's drafts `doq-iNN`, anywhere in the
/// list; not a longer name that begins like one. The corpus's ClientHello with the 9 bytes of
/// its one ALPN entry (length 8, `http/1.1`) replaced by entries of the same 9 bytes in all.
#[test]
fn dns_alpn_offers() {
    let v = vector!("tls_client_hello");
    let at = v
        .windows(9)
        .position(|w| w == b"\x08http/1.1")
        .expect("the vector offers http/1.1");
    let hlen = usize::from(v[6]) << 16 | usize::from(v[7]) << 8 | usize::from(v[8]);
    for (entries, dns) in [
        (&b"\x08http/1.1"[..], false),
        (b"\x03dot\x04h2xx", true),
        (b"\x04h2xx\x03doq", true),
        (b"\x01x\x06doq-i1", true),
        (b"\x08dotdot11", false),
        (b"\x08doqueue1", false),
    ] {
        let mut w = v.clone();
        w[at..at + 9].copy_from_slice(entries);
        let o = client_hello(&w[9..9 + hlen], b't', &mut Meta::default(), &mut Digests::default());
        assert_eq!(o.map(|o| o.dns), Some(dns), "{entries:?}");
    }
}

/// The fingerprints memo ([`Digests::hello`]) keyed by a ClientHello's lists: whatever
/// ClientHellos came before, each one's JA3 and JA4 are those a fresh worker computes for it.
/// Pairs of hellos drawn from few values so that their lists often coincide (then the second is
/// answered from the memo) or differ in one place (order, an entry, a list's end), with GREASE
/// anywhere, a name or not, and a supported_versions extension or not.
mod hello_memo {
    use super::*;
    use proptest::prelude::*;

    #[derive(Clone, Debug)]
    struct Hello {
        legacy: u16,
        ciphers: Vec<u16>,
        groups: Vec<u16>,
        points: Vec<u8>,
        sigalgs: Vec<u16>,
        exts: Vec<u16>,
        sni: bool,
        versions: bool,
    }

    fn vec16(v: &[u16]) -> Vec<u8> {
        let mut o = ((2 * v.len()) as u16).to_be_bytes().to_vec();
        for x in v {
            o.extend_from_slice(&x.to_be_bytes());
        }
        o
    }

    fn body(h: &Hello) -> Vec<u8> {
        let mut b = h.legacy.to_be_bytes().to_vec();
        b.extend_from_slice(&[7; 32]);
        b.push(0);
        b.extend(vec16(&h.ciphers));
        b.extend_from_slice(&[1, 0]);
        let mut e = Vec::new();
        let mut ext = |typ: u16, data: Vec<u8>| {
            e.extend_from_slice(&typ.to_be_bytes());
            e.extend_from_slice(&(data.len() as u16).to_be_bytes());
            e.extend(data);
        };
        if h.sni {
            let name = b"www.example.org";
            let mut d = ((name.len() + 3) as u16).to_be_bytes().to_vec();
            d.push(0);
            d.extend_from_slice(&(name.len() as u16).to_be_bytes());
            d.extend_from_slice(name);
            ext(0, d);
        }
        ext(10, vec16(&h.groups));
        let mut p = vec![h.points.len() as u8];
        p.extend_from_slice(&h.points);
        ext(11, p);
        ext(13, vec16(&h.sigalgs));
        for &t in &h.exts {
            ext(t, vec![]);
        }
        if h.versions {
            ext(43, vec![4, 0x03, 0x04, 0x03, 0x03]);
        }
        b.extend(vec16_bytes(&e));
        b
    }

    fn vec16_bytes(d: &[u8]) -> Vec<u8> {
        let mut o = (d.len() as u16).to_be_bytes().to_vec();
        o.extend_from_slice(d);
        o
    }

    /// Values from a small set, GREASE among them.
    fn value() -> impl Strategy<Value = u16> {
        prop::sample::select(vec![0x1301, 0x1302, 0xc02b, 0x0a0a, 0x3a3a, 0x001d, 0x0017, 23, 5])
    }

    fn hello() -> impl Strategy<Value = Hello> {
        (
            prop::sample::select(vec![0x0303u16, 0x0301]),
            prop::collection::vec(value(), 0..6),
            prop::collection::vec(value(), 0..4),
            prop::collection::vec(0u8..3, 0..3),
            prop::collection::vec(value(), 0..4),
            prop::collection::vec(prop::sample::select(vec![5u16, 23, 35, 0x1a1a, 65281]), 0..4),
            any::<bool>(),
            any::<bool>(),
        )
            .prop_map(|(legacy, ciphers, groups, points, sigalgs, exts, sni, versions)| Hello {
                legacy,
                ciphers,
                groups,
                points,
                sigalgs,
                exts,
                sni,
                versions,
            })
    }

    fn prints(b: &[u8], digests: &mut Digests) -> (Option<String>, Option<String>) {
        let mut m = Meta::default();
        client_hello(b, b't', &mut m, digests);
        let f = |x| m.get(x).map(str::to_string);
        (f(Field::Ja3c), f(Field::Ja4))
    }

    /// `h` changed in one place (kind `k`): the same lists, or one thing that a fingerprint
    /// reads (or, for the name, the GREASE and the versions, that only JA4's first part reads).
    fn variant(h: &Hello, k: u8) -> Hello {
        let mut v = h.clone();
        match k {
            0 => {}
            1 => v.legacy ^= 2,
            2 => v.ciphers.reverse(),
            3 => {
                v.groups.pop();
            }
            4 => v.points.push(1),
            5 => v.sigalgs.insert(0, 0x0403),
            6 => v.exts.push(0x2a2a),
            7 => v.sni = !v.sni,
            8 => v.versions = !v.versions,
            9 => v.ciphers.insert(0, 0xdada),
            10 => {
                if let Some(p) = v.points.first_mut() {
                    *p ^= 1;
                }
            }
            _ => v.exts.push(17),
        }
        v
    }

    proptest! {
        #[test]
        fn memo_answers_what_a_fresh_worker_computes(
            base in hello(),
            kinds in prop::collection::vec(0u8..12, 1..8),
        ) {
            let mut shared = Digests::default();
            let hellos: Vec<Hello> = std::iter::once(base.clone())
                .chain(kinds.iter().map(|&k| variant(&base, k)))
                .collect();
            for h in &hellos {
                let b = body(h);
                let fresh = prints(&b, &mut Digests::default());
                prop_assert!(fresh.0.is_some() && fresh.1.is_some());
                prop_assert_eq!(prints(&b, &mut shared), fresh);
            }
        }
    }
}
