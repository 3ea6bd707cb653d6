use super::*;
use crate::tests::{to_server, vector};
use std::time::Instant;

#[test]
fn builtin_dictionary_parses() {
    let s = SigSet::parse(BUILTIN, SEED).unwrap();
    assert!(s.len() >= 10);
    assert!(s.groups() <= s.len());
}

#[test]
fn wildcards_order_and_transport() {
    let s = SigSet::parse(
        "A Web tcp \"AB\" ?? \"D\"\nB Web tcp \"AB\"\nC Web udp 41 42",
        1,
    )
    .unwrap();
    // Both A and B match "ABxD": the first in file order wins.
    assert_eq!(s.find(TCP, b"ABxD..").unwrap().master.as_ref(), "A");
    assert_eq!(s.find(TCP, b"ABxE").unwrap().master.as_ref(), "B");
    assert_eq!(s.find(UDP, b"AB").unwrap().master.as_ref(), "C");
    assert!(s.find(TCP, b"A").is_none());
    for bad in [
        "X Web tcp",
        "X Web sctp 41",
        "X Web tcp \"open",
        "X Web tcp ??",
        "X Web tcp 4g",
    ] {
        assert!(SigSet::parse(bad, 1).is_err(), "{bad}");
    }
}

/// Issue 33: a NUL (or any control character) in a name or category was refused later by the
/// label registry, in an error that named neither file nor line; the parser names the line.
#[test]
fn a_control_character_in_a_label_names_its_line() {
    for (text, what) in [
        (
            "# x\nA Web tcp \"a\"\nB\0x Web tcp \"b\"\n",
            "the name \"B\\0x\"",
        ),
        ("A We\u{1b}b udp 41\n", "the category \"We\\u{1b}b\""),
    ] {
        let e = SigSet::parse(text, 1).err().unwrap();
        let line = if text.starts_with('#') { 3 } else { 1 };
        assert!(
            e.starts_with(&format!(
                "signatures line {line}: {what} holds a control character"
            )),
            "{e}"
        );
    }
    let long = format!("{}\0 Web tcp \"a\"", "N".repeat(100_000));
    let e = SigSet::parse(&long, 1).err().unwrap();
    assert!(e.len() < 200, "{e}");
}

/// bittorrent.pcap and gnutella.pcap, first payload of each (tshark: BitTorrent handshake,
/// "GNUTELLA CONNECT/0.6"); nDPI names both flows so.
#[test]
fn corpus_vectors() {
    let sigs = SigSet::parse(BUILTIN, SEED).unwrap();
    // The answer names the signature by the index the probe keeps in its state.
    let named = |server_port: u16, data: &[u8]| {
        let hints = to_server(TCP, server_port);
        let (r, _, state) = crate::tests::probe_from(
            &sigs,
            &INSPECTOR,
            hints,
            data,
            crate::Meta::default(),
            crate::StateArea::ZERO,
        );
        match r {
            Probe::Certain(l) if std::ptr::eq(l, &BY_SIGNATURE) => {
                sigs.sigs()[chosen(&state)].master.to_string()
            }
            r => format!("{r:?}"),
        }
    };
    assert_eq!(named(6881, &vector!("sig_bittorrent")), "BitTorrent");
    assert_eq!(named(6346, &vector!("sig_gnutella")), "Gnutella");
}

fn random_sigs(n: usize, len: usize, seed: u64, wild: bool) -> Vec<Sig> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            let bytes: Vec<u8> = (0..len).map(|_| splitmix(&mut s) as u8).collect();
            let mut mask = if len == 64 {
                u64::MAX
            } else {
                (1u64 << len) - 1
            };
            if wild {
                // One to three wildcards out of eight mask shapes: few groups.
                mask &= !(0b101u64 << (splitmix(&mut s) % 8));
            }
            Sig {
                master: "R".into(),
                category: "Web".into(),
                transports: TCP,
                bytes,
                mask,
            }
        })
        .collect()
}

/// The paper's Table II question: how often do encoded signatures collide when keys are cut to
/// m bits? 1,000 random 16-byte signatures, 100 tables. Printed; the 64-bit keys used for
/// matching must not collide at all here, and shorter keys must collide about as the birthday
/// bound says (an independent check of the hash's randomness).
#[test]
fn collisions() {
    let n = 1000usize;
    println!("m  signatures sharing their m-bit key with another (1,000 × 16 bytes, 100 tables)");
    for m in [10u32, 11, 12, 13, 14, 15, 16, 64] {
        let mut shared = 0usize;
        for run in 0..100u64 {
            let set = SigSet::new(random_sigs(n, 16, 7 + run, false), 1000 + run);
            let mut keys = set.keys();
            let cut = if m == 64 { u64::MAX } else { (1u64 << m) - 1 };
            for k in keys.iter_mut() {
                *k &= cut;
            }
            let mut count: HashMap<u64, usize> = HashMap::new();
            for k in &keys {
                *count.entry(*k).or_default() += 1;
            }
            shared += keys.iter().filter(|k| count[k] > 1).count();
        }
        let p = shared as f64 / (100 * n) as f64;
        // Birthday bound: P(a key is shared) = 1 - (1 - 2^-m)^(n-1).
        let expect = 1.0 - (1.0 - 0.5f64.powi(m.min(63) as i32)).powi(n as i32 - 1);
        println!("{m:>2} {p:.4} (uniform keys: {expect:.4})");
        if m == 64 {
            assert_eq!(shared, 0);
        } else {
            assert!(
                (p - expect).abs() < 0.05 + expect * 0.1,
                "m={m}: {p} vs {expect}"
            );
        }
    }
}

/// Matching cost for 10, 100 and 1,000 signatures (with wildcards), printed. Correctness is
/// checked: every signature finds itself.
#[test]
fn throughput_by_dictionary_size() {
    for n in [10usize, 100, 1000] {
        let sigs = random_sigs(n, 16, 99, true);
        let set = SigSet::new(sigs.clone(), 5);
        for (i, s) in sigs.iter().enumerate() {
            let hit = set.find(TCP, &s.bytes).expect("finds itself");
            assert!(hit.bytes == s.bytes || i > 0, "sig {i}");
        }
        let mut s = 3u64;
        let payloads: Vec<[u8; 64]> = (0..4096)
            .map(|_| std::array::from_fn(|_| splitmix(&mut s) as u8))
            .collect();
        let t = Instant::now();
        let mut hits = 0usize;
        for _ in 0..25 {
            for p in &payloads {
                hits += usize::from(set.find(TCP, p).is_some());
            }
        }
        let ns = t.elapsed().as_nanos() as f64 / (25.0 * payloads.len() as f64);
        println!(
            "{n:>5} signatures, {} mask groups: {ns:.0} ns per packet ({hits} hits on random data)",
            set.groups()
        );
    }
}

proptest::proptest! {
    /// `find_index` (the first-byte filter, then the Zobrist groups) answers as a plain scan
    /// does: the first signature in file order, on the transport, whose fixed bytes all equal
    /// the payload's. A three-letter alphabet makes matches, key ties and the filter's both
    /// answers common; signatures may leave their first byte open or be empty.
    #[test]
    fn find_is_the_first_match_in_file_order(
        sigs in proptest::collection::vec(
            (proptest::collection::vec(0u8..3, 0..6), proptest::prelude::any::<u64>(), 1u8..4),
            1..8,
        ),
        payload in proptest::collection::vec(0u8..3, 0..8),
        transport in 1u8..3,
    ) {
        let sigs: Vec<Sig> = sigs
            .into_iter()
            .map(|(bytes, mask, transports)| Sig {
                master: "R".into(),
                category: "Web".into(),
                transports,
                mask: mask & ((1u64 << bytes.len()) - 1),
                bytes,
            })
            .collect();
        let want = sigs.iter().position(|s| {
            s.transports & transport != 0
                && payload.len() >= s.bytes.len()
                && s.bytes.iter().enumerate().all(|(k, &c)| s.mask >> k & 1 == 0 || payload[k] == c)
        });
        let set = SigSet::new(sigs, 11);
        proptest::prop_assert_eq!(set.find_index(transport, &payload).map(|i| i as usize), want);
    }
}
