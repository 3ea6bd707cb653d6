//! Property tests: hostile bytes never panic or loop, writers round-trip, truncation yields a
//! prefix and an error at the cut record.

use proptest::prelude::*;
use wirespeed_capture::{CaptureErrorKind, CaptureFile, PcapWriter, PcapngWriter, RawPacket};

/// Read everything with `next_batch`, checking the API contract on the way. Returns the packets
/// (owned) and the error offset, if any.
/// A packet as read: ts_ns, wire_len, link, iface, data.
type Got = (u64, u32, u32, u32, Vec<u8>);

fn drain(f: &CaptureFile, max: usize) -> (Vec<Got>, Option<u64>) {
    let mut r = f.reader();
    let mut batch: Vec<RawPacket<'_>> = Vec::new();
    let mut out = Vec::new();
    // Every packet consumes at least 12 bytes, so more calls than this means a loop.
    let bound = f.len() as usize / 12 + 2;
    for _ in 0..bound {
        batch.clear();
        let before = r.position();
        let res = r.next_batch(&mut batch, max);
        assert!(r.position() >= before);
        assert!(r.position() <= f.len());
        for p in &batch {
            out.push((p.ts_ns, p.wire_len, p.link, p.iface, p.data.to_vec()));
        }
        match res {
            Ok(0) => {
                assert!(batch.is_empty());
                assert_eq!(r.position(), f.len());
                return (out, None);
            }
            Ok(n) => assert!(n == batch.len() && n <= max),
            Err(e) => {
                assert!(batch.is_empty());
                assert!(e.offset <= f.len());
                assert_eq!(r.next_batch(&mut batch, max).unwrap(), 0);
                return (out, Some(e.offset));
            }
        }
    }
    panic!("reader did not finish within {bound} calls");
}

fn pcap_header(be: bool, nanos: bool, network: u32) -> Vec<u8> {
    let magic: u32 = if nanos { 0xa1b2_3c4d } else { 0xa1b2_c3d4 };
    let w = |v: u32| if be { v.to_be_bytes() } else { v.to_le_bytes() };
    let mut h = Vec::new();
    h.extend_from_slice(&w(magic));
    h.extend_from_slice(&w(if be { 0x0002_0004 } else { 0x0004_0002 }));
    h.extend_from_slice(&[0; 8]);
    h.extend_from_slice(&w(65535));
    h.extend_from_slice(&w(network));
    h
}

fn pcapng_header(be: bool) -> Vec<u8> {
    let w = |v: u32| if be { v.to_be_bytes() } else { v.to_le_bytes() };
    let mut h = Vec::new();
    h.extend_from_slice(&w(0x0A0D_0D0A));
    h.extend_from_slice(&w(28));
    h.extend_from_slice(&w(0x1A2B_3C4D));
    h.extend_from_slice(&w(if be { 0x0001_0000 } else { 0x0000_0001 }));
    h.extend_from_slice(&[0xff; 8]);
    h.extend_from_slice(&w(28));
    h
}

type Pkt = (u64, Vec<u8>, u32);
/// A written file: bytes, offset of the first packet record, end offset of each record, packets.
type Built = (Vec<u8>, usize, Vec<usize>, Vec<(u32, Pkt)>);

fn packets() -> impl Strategy<Value = Vec<Pkt>> {
    prop::collection::vec(
        (
            0u64..(u32::MAX as u64 * 1_000_000_000),
            prop::collection::vec(any::<u8>(), 0..300),
            any::<u32>(),
        ),
        0..20,
    )
}

fn pcap_bytes(pkts: &[Pkt], nanos: bool) -> (Vec<u8>, Vec<usize>) {
    let mut w = PcapWriter::new(Vec::new(), 1, nanos).unwrap();
    let mut ends = Vec::new();
    let mut at = 24;
    for (ts, d, wl) in pkts {
        w.write(*ts, d, *wl).unwrap();
        at += 16 + d.len();
        ends.push(at);
    }
    (w.finish().unwrap(), ends)
}

fn pcapng_bytes(pkts: &[(u32, Pkt)], links: &[u32]) -> (Vec<u8>, usize, Vec<usize>) {
    let mut w = PcapngWriter::new(Vec::new()).unwrap();
    for &l in links {
        w.add_interface(l).unwrap();
    }
    let mut at = 28 + 32 * links.len();
    let first = at;
    let mut ends = Vec::new();
    for (i, (ts, d, wl)) in pkts {
        w.write(*i, *ts, d, *wl).unwrap();
        at += 32 + d.len().div_ceil(4) * 4;
        ends.push(at);
    }
    (w.finish().unwrap(), first, ends)
}

proptest! {
    #[test]
    fn garbage_after_pcap_header_never_panics(
        be: bool, nanos: bool, network: u32,
        tail in prop::collection::vec(any::<u8>(), 0..2000),
        max in 1usize..70,
    ) {
        let mut b = pcap_header(be, nanos, network);
        b.extend_from_slice(&tail);
        let f = CaptureFile::from_bytes("prop.pcap", b).unwrap();
        drain(&f, max);
    }

    #[test]
    fn garbage_after_pcapng_header_never_panics(
        be: bool,
        with_idb: bool,
        tail in prop::collection::vec(any::<u8>(), 0..2000),
        max in 1usize..70,
    ) {
        let mut b = pcapng_header(be);
        if with_idb {
            let w = |v: u32| if be { v.to_be_bytes() } else { v.to_le_bytes() };
            b.extend_from_slice(&w(1));
            b.extend_from_slice(&w(20));
            b.extend_from_slice(&w(if be { 0x0001_0000 } else { 1 }));
            b.extend_from_slice(&w(0));
            b.extend_from_slice(&w(20));
        }
        b.extend_from_slice(&tail);
        let f = CaptureFile::from_bytes("prop.pcapng", b).unwrap();
        drain(&f, max);
    }

    #[test]
    fn mutated_valid_files_never_panic(
        pkts in packets(),
        ng: bool,
        flips in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..8),
    ) {
        let mut b = if ng {
            let p: Vec<_> = pkts.into_iter().map(|p| (0, p)).collect();
            pcapng_bytes(&p, &[1]).0
        } else {
            pcap_bytes(&pkts, false).0
        };
        for (i, v) in flips {
            let i = i.index(b.len());
            b[i] = v;
        }
        if let Ok(f) = CaptureFile::from_bytes("prop", b) {
            drain(&f, 7);
            // The iterator agrees with next_batch.
            let (pk, err) = drain(&f, 1);
            let it: Vec<_> = f.reader().collect();
            prop_assert_eq!(it.len(), pk.len() + usize::from(err.is_some()));
        }
    }

    #[test]
    fn pcap_round_trip(pkts in packets(), nanos: bool, max in 1usize..30) {
        let (b, _) = pcap_bytes(&pkts, nanos);
        let f = CaptureFile::from_bytes("rt.pcap", b).unwrap();
        let (got, err) = drain(&f, max);
        prop_assert_eq!(err, None);
        prop_assert_eq!(got.len(), pkts.len());
        for (g, (ts, d, wl)) in got.iter().zip(&pkts) {
            let want_ts = if nanos { *ts } else { ts / 1000 * 1000 };
            prop_assert_eq!(g, &(want_ts, *wl, 1, 0, d.clone()));
        }
    }

    #[test]
    fn pcapng_round_trip(
        links in prop::collection::vec(0u32..300, 1..4),
        pkts in prop::collection::vec((any::<prop::sample::Index>(), any::<u64>(), prop::collection::vec(any::<u8>(), 0..300), any::<u32>()), 0..20),
        max in 1usize..30,
    ) {
        let pkts: Vec<(u32, Pkt)> = pkts
            .into_iter()
            .map(|(i, ts, d, wl)| (i.index(links.len()) as u32, (ts, d, wl)))
            .collect();
        let (b, _, _) = pcapng_bytes(&pkts, &links);
        let f = CaptureFile::from_bytes("rt.pcapng", b).unwrap();
        let (got, err) = drain(&f, max);
        prop_assert_eq!(err, None);
        prop_assert_eq!(got.len(), pkts.len());
        for (g, (i, (ts, d, wl))) in got.iter().zip(&pkts) {
            prop_assert_eq!(g, &(*ts, *wl, links[*i as usize], *i, d.clone()));
        }
    }

    #[test]
    fn truncation_yields_prefix_then_error(
        pkts in packets(),
        ng: bool,
        cut in any::<prop::sample::Index>(),
        max in 1usize..10,
    ) {
        let (b, first, ends, owned): Built = if ng {
            let p: Vec<_> = pkts.into_iter().map(|p| (0, p)).collect();
            let (b, first, ends) = pcapng_bytes(&p, &[1]);
            (b, first, ends, p)
        } else {
            let (b, ends) = pcap_bytes(&pkts, true);
            (b, 24, ends, pkts.into_iter().map(|p| (0, p)).collect())
        };
        // Cut anywhere after the headers (the file header itself is checked by unit tests).
        let cut = first + cut.index(b.len() - first + 1);
        let whole = ends.iter().filter(|&&e| e <= cut).count();
        let f = CaptureFile::from_bytes("cut", b[..cut].to_vec()).unwrap();
        let (got, err) = drain(&f, max);
        prop_assert_eq!(got.len(), whole);
        for (g, (_, (ts, d, wl))) in got.iter().zip(&owned) {
            prop_assert_eq!((g.0, g.1, &g.4), (*ts, *wl, d));
        }
        let boundary = cut == first || ends.contains(&cut);
        if boundary {
            prop_assert_eq!(err, None);
        } else {
            // The error names the start of the record that was cut.
            let start = if whole == 0 { first } else { ends[whole - 1] };
            prop_assert_eq!(err, Some(start as u64));
            let e = f.reader().find_map(Result::err).unwrap();
            let is_truncated = matches!(e.kind, CaptureErrorKind::Truncated { .. });
            prop_assert!(is_truncated, "{:?}", e);
        }
    }
}
