use super::*;

fn read_all(f: &CaptureFile) -> (Vec<RawPacket<'_>>, Option<CaptureError>) {
    let mut out = Vec::new();
    let mut err = None;
    for r in f.reader() {
        match r {
            Ok(p) => out.push(p),
            Err(e) => {
                assert!(err.is_none(), "two errors");
                err = Some(e);
            }
        }
    }
    (out, err)
}

/// Packet count and error of in-memory file bytes.
fn count_err(b: Vec<u8>) -> (usize, Option<CaptureError>) {
    let f = bytes_file(b);
    let (p, e) = read_all(&f);
    (p.len(), e)
}

fn corrupt_at(e: &CaptureError) -> (u64, &'static str) {
    match e.kind {
        CaptureErrorKind::Corrupt(w) => (e.offset, w),
        ref k => panic!("expected Corrupt, got {k:?} at {}", e.offset),
    }
}

fn truncated_at(e: &CaptureError) -> (u64, u64, u64) {
    match e.kind {
        CaptureErrorKind::Truncated { needed, available } => (e.offset, needed, available),
        ref k => panic!("expected Truncated, got {k:?} at {}", e.offset),
    }
}

// ---- hand-built pcapng ----

fn u16b(v: u16, be: bool) -> [u8; 2] {
    if be {
        v.to_be_bytes()
    } else {
        v.to_le_bytes()
    }
}
fn u32b(v: u32, be: bool) -> [u8; 4] {
    if be {
        v.to_be_bytes()
    } else {
        v.to_le_bytes()
    }
}

/// A block: type, total length, body padded to 4, total length.
fn block(be: bool, btype: u32, body: &[u8]) -> Vec<u8> {
    let pad = (4 - body.len() % 4) % 4;
    let total = (12 + body.len() + pad) as u32;
    let mut b = Vec::new();
    b.extend_from_slice(&u32b(btype, be));
    b.extend_from_slice(&u32b(total, be));
    b.extend_from_slice(body);
    b.resize(b.len() + pad, 0);
    b.extend_from_slice(&u32b(total, be));
    b
}

fn shb(be: bool) -> Vec<u8> {
    let mut body = Vec::new();
    body.extend_from_slice(&u32b(PCAPNG_BOM, be));
    body.extend_from_slice(&u16b(1, be));
    body.extend_from_slice(&u16b(0, be));
    body.extend_from_slice(&[0xff; 8]);
    block(be, PCAPNG_SHB, &body)
}

fn opt(be: bool, code: u16, val: &[u8]) -> Vec<u8> {
    let mut o = Vec::new();
    o.extend_from_slice(&u16b(code, be));
    o.extend_from_slice(&u16b(val.len() as u16, be));
    o.extend_from_slice(val);
    o.resize(o.len() + (4 - val.len() % 4) % 4, 0);
    o
}

fn idb(be: bool, link: u16, opts: &[Vec<u8>]) -> Vec<u8> {
    let mut body = Vec::new();
    body.extend_from_slice(&u16b(link, be));
    body.extend_from_slice(&[0, 0]);
    body.extend_from_slice(&u32b(65535, be));
    for o in opts {
        body.extend_from_slice(o);
    }
    if !opts.is_empty() {
        body.extend_from_slice(&[0; 4]);
    }
    block(be, 1, &body)
}

fn epb(be: bool, iface: u32, ts: u64, data: &[u8], orig: u32) -> Vec<u8> {
    let mut body = Vec::new();
    body.extend_from_slice(&u32b(iface, be));
    body.extend_from_slice(&u32b((ts >> 32) as u32, be));
    body.extend_from_slice(&u32b(ts as u32, be));
    body.extend_from_slice(&u32b(data.len() as u32, be));
    body.extend_from_slice(&u32b(orig, be));
    body.extend_from_slice(data);
    block(be, 6, &body)
}

fn bytes_file(b: Vec<u8>) -> CaptureFile {
    CaptureFile::from_bytes("mem.cap", b).unwrap()
}

// ---- writers round trip ----

fn sample_packets() -> Vec<(u64, Vec<u8>, u32)> {
    vec![
        (1_700_000_000_123_456_789, vec![1, 2, 3, 4, 5, 6, 7], 7),
        (1_700_000_001_000_000_001, vec![], 0),
        (1_700_000_002_999_999_999, (0..=255).collect(), 1500),
        (0, vec![0xaa; 60], 60),
    ]
}

#[test]
fn pcap_writer_round_trip_micro_and_nano() {
    for nanos in [false, true] {
        let pkts = sample_packets();
        let mut w = PcapWriter::new(Vec::new(), 228, nanos).unwrap();
        for (ts, d, wl) in &pkts {
            w.write(*ts, d, *wl).unwrap();
        }
        let bytes = w.finish().unwrap();
        let magic = if nanos { 0xa1b2_3c4d_u32 } else { 0xa1b2_c3d4 };
        assert_eq!(&bytes[0..4], &magic.to_le_bytes());
        assert_eq!(&bytes[4..8], &[2, 0, 4, 0]);
        assert_eq!(&bytes[16..20], &65535u32.to_le_bytes());
        assert_eq!(&bytes[20..24], &228u32.to_le_bytes());
        let len = bytes.len() as u64;
        let f = bytes_file(bytes);
        assert!(!f.is_pcapng());
        let (got, err) = read_all(&f);
        assert!(err.is_none());
        assert_eq!(got.len(), pkts.len());
        for (p, (ts, d, wl)) in got.iter().zip(&pkts) {
            let want_ts = if nanos { *ts } else { ts / 1000 * 1000 };
            assert_eq!(p.ts_ns, want_ts);
            assert_eq!(p.data, &d[..]);
            assert_eq!(p.wire_len, *wl);
            assert_eq!(p.link, 228);
            assert_eq!(p.iface, 0);
        }
        let mut r = f.reader();
        let mut batch = Vec::new();
        assert_eq!(r.next_batch(&mut batch, 100).unwrap(), 4);
        assert_eq!(r.position(), len);
        assert_eq!(r.next_batch(&mut batch, 100).unwrap(), 0);
    }
}

#[test]
fn pcap_writer_rejects_far_future() {
    let mut w = PcapWriter::new(Vec::new(), 1, true).unwrap();
    let e = w.write(u64::MAX, &[1], 1).unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
}

#[test]
fn pcapng_writer_round_trip_two_interfaces() {
    let mut w = PcapngWriter::new(Vec::new()).unwrap();
    assert_eq!(w.add_interface(1).unwrap(), 0);
    assert_eq!(w.add_interface(101).unwrap(), 1);
    assert!(w.write(2, 0, &[1], 1).is_err());
    assert!(w.add_interface(70000).is_err());
    let pkts: Vec<(u32, u64, Vec<u8>, u32)> = vec![
        (0, 1_700_000_000_123_456_789, vec![1, 2, 3], 3),
        (1, u64::MAX, vec![9; 5], 1000),
        (0, 5, vec![], 0),
        (1, 1 << 40, (0..64).collect(), 64),
    ];
    for (i, ts, d, wl) in &pkts {
        w.write(*i, *ts, d, *wl).unwrap();
    }
    let f = bytes_file(w.finish().unwrap());
    assert!(f.is_pcapng());
    let (got, err) = read_all(&f);
    assert!(err.is_none(), "{err:?}");
    assert_eq!(got.len(), pkts.len());
    for (p, (i, ts, d, wl)) in got.iter().zip(&pkts) {
        assert_eq!(p.iface, *i);
        assert_eq!(p.link, if *i == 0 { 1 } else { 101 });
        assert_eq!(p.ts_ns, *ts);
        assert_eq!(p.data, &d[..]);
        assert_eq!(p.wire_len, *wl);
    }
}

// ---- big-endian pcap ----

#[test]
fn big_endian_pcap_micro_and_nano() {
    for nanos in [false, true] {
        let mut b = Vec::new();
        b.extend_from_slice(&(if nanos { 0xa1b2_3c4d_u32 } else { 0xa1b2_c3d4 }).to_be_bytes());
        b.extend_from_slice(&2u16.to_be_bytes());
        b.extend_from_slice(&4u16.to_be_bytes());
        b.extend_from_slice(&[0; 8]);
        b.extend_from_slice(&262144u32.to_be_bytes());
        b.extend_from_slice(&113u32.to_be_bytes()); // LINKTYPE_LINUX_SLL
        for (sec, frac, data, orig) in [
            (10u32, 20u32, &[1u8, 2, 3][..], 3u32),
            (11, 999, &[4u8; 16][..], 40),
        ] {
            b.extend_from_slice(&sec.to_be_bytes());
            b.extend_from_slice(&frac.to_be_bytes());
            b.extend_from_slice(&(data.len() as u32).to_be_bytes());
            b.extend_from_slice(&orig.to_be_bytes());
            b.extend_from_slice(data);
        }
        let f = bytes_file(b);
        let (got, err) = read_all(&f);
        assert!(err.is_none());
        let m = if nanos { 1 } else { 1000 };
        assert_eq!(
            got,
            vec![
                RawPacket {
                    ts_ns: 10_000_000_000 + 20 * m,
                    wire_len: 3,
                    link: 113,
                    iface: 0,
                    data: &[1, 2, 3]
                },
                RawPacket {
                    ts_ns: 11_000_000_000 + 999 * m,
                    wire_len: 40,
                    link: 113,
                    iface: 0,
                    data: &[4; 16]
                },
            ]
        );
    }
}

#[test]
fn pcap_fcs_bits_strip_fcs() {
    let mut w = PcapWriter::new(Vec::new(), 1, false).unwrap();
    w.write(0, &[1, 2, 3, 4, 5, 6, 0xf1, 0xf2, 0xf3, 0xf4], 10)
        .unwrap(); // full frame + 4 FCS
    w.write(0, &[1, 2, 3, 4, 5, 6, 0xf1], 10).unwrap(); // snapped inside the FCS
    w.write(0, &[1, 2], 10).unwrap(); // snapped before the FCS
    let mut b = w.finish().unwrap();
    // F bit set, FCS length 2 words = 4 bytes, link 1.
    let network: u32 = (2 << 29) | 0x1000_0000 | 1;
    b[20..24].copy_from_slice(&network.to_le_bytes());
    let f = bytes_file(b);
    let (got, err) = read_all(&f);
    assert!(err.is_none());
    assert_eq!(got[0].data, &[1, 2, 3, 4, 5, 6]);
    assert_eq!(got[0].wire_len, 6);
    assert_eq!(got[0].link, 1);
    assert_eq!(got[1].data, &[1, 2, 3, 4, 5, 6]);
    assert_eq!(got[2].data, &[1, 2]);
    assert_eq!(got[2].wire_len, 6);
}

// ---- pcapng interfaces, resolutions, sections, block types ----

#[test]
fn pcapng_interfaces_with_different_link_and_tsresol() {
    let be = false;
    let mut b = shb(be);
    b.extend(idb(be, 1, &[])); // 0: Ethernet, default microseconds
    b.extend(idb(be, 101, &[opt(be, 9, &[9])])); // 1: raw IP, nanoseconds
    b.extend(idb(
        be,
        113,
        &[opt(be, 2, b"eth9"), opt(be, 9, &[0x80 | 10])],
    )); // 2: SLL, 2^-10 s
    b.extend(idb(
        be,
        1,
        &[opt(be, 9, &[3]), opt(be, 14, &100i64.to_le_bytes())],
    )); // 3: ms, +100 s
    b.extend(block(be, 4, &[0; 8])); // NRB: skipped
    b.extend(epb(be, 0, 1_700_000_000_123_456, &[1, 2, 3], 3));
    b.extend(epb(be, 1, 1_700_000_000_123_456_789, &[4; 5], 60));
    b.extend(epb(be, 2, 3 * 1024 + 512, &[5], 1)); // 3.5 s
    b.extend(block(be, 5, &[0; 20])); // ISB: skipped
    b.extend(epb(be, 3, 2_500, &[6, 7], 2)); // 2.5 s + 100 s
    b.extend(block(be, 0x0BAD, &[1, 2, 3, 4])); // custom/unknown: skipped
    let f = bytes_file(b);
    let (got, err) = read_all(&f);
    assert!(err.is_none(), "{err:?}");
    assert_eq!(
        got,
        vec![
            RawPacket {
                ts_ns: 1_700_000_000_123_456_000,
                wire_len: 3,
                link: 1,
                iface: 0,
                data: &[1, 2, 3]
            },
            RawPacket {
                ts_ns: 1_700_000_000_123_456_789,
                wire_len: 60,
                link: 101,
                iface: 1,
                data: &[4; 5]
            },
            RawPacket {
                ts_ns: 3_500_000_000,
                wire_len: 1,
                link: 113,
                iface: 2,
                data: &[5]
            },
            RawPacket {
                ts_ns: 102_500_000_000,
                wire_len: 2,
                link: 1,
                iface: 3,
                data: &[6, 7]
            },
        ]
    );
}

#[test]
fn pcapng_sections_reset_interfaces_and_byte_order() {
    let mut b = shb(false);
    b.extend(idb(false, 1, &[]));
    b.extend(idb(false, 101, &[]));
    b.extend(epb(false, 1, 1, &[1], 1));
    // Second section, big-endian, one interface: interface 1 no longer exists.
    b.extend(shb(true));
    b.extend(idb(true, 113, &[opt(true, 9, &[9])]));
    b.extend(epb(true, 0, 42, &[2, 2], 2));
    // Simple Packet Block (interface 0, no timestamp), origlen 5 but 8 bytes of block space.
    let mut spb = Vec::new();
    spb.extend_from_slice(&5u32.to_be_bytes());
    spb.extend_from_slice(&[7, 7, 7, 7, 7, 0, 0, 0]);
    b.extend(block(true, 3, &spb));
    // SPB whose origlen exceeds the block: caplen = block space (4 bytes).
    let mut spb = Vec::new();
    spb.extend_from_slice(&9000u32.to_be_bytes());
    spb.extend_from_slice(&[8; 4]);
    b.extend(block(true, 3, &spb));
    // Obsolete Packet Block: u16 interface, u16 drops.
    let mut pb = Vec::new();
    pb.extend_from_slice(&0u16.to_be_bytes());
    pb.extend_from_slice(&3u16.to_be_bytes());
    pb.extend_from_slice(&0u32.to_be_bytes());
    pb.extend_from_slice(&77u32.to_be_bytes());
    pb.extend_from_slice(&2u32.to_be_bytes());
    pb.extend_from_slice(&4u32.to_be_bytes());
    pb.extend_from_slice(&[9, 9]);
    b.extend(block(true, 2, &pb));
    let bad_at = b.len() as u64;
    b.extend(epb(true, 1, 0, &[3], 1));
    let f = bytes_file(b);
    let (got, err) = read_all(&f);
    assert_eq!(
        got,
        vec![
            RawPacket {
                ts_ns: 1000,
                wire_len: 1,
                link: 101,
                iface: 1,
                data: &[1]
            },
            RawPacket {
                ts_ns: 42,
                wire_len: 2,
                link: 113,
                iface: 0,
                data: &[2, 2]
            },
            RawPacket {
                ts_ns: 0,
                wire_len: 5,
                link: 113,
                iface: 0,
                data: &[7; 5]
            },
            RawPacket {
                ts_ns: 0,
                wire_len: 9000,
                link: 113,
                iface: 0,
                data: &[8; 4]
            },
            RawPacket {
                ts_ns: 77,
                wire_len: 4,
                link: 113,
                iface: 0,
                data: &[9, 9]
            },
        ]
    );
    let e = err.expect("unknown interface");
    assert_eq!(corrupt_at(&e), (bad_at, "packet for unknown interface"));
}

#[test]
fn pcapng_hostile_timestamps_do_not_panic() {
    for r in 0..=255u8 {
        let unit = if r & 0x80 == 0 {
            TsUnit::Pow10(r)
        } else {
            TsUnit::Pow2(r & 0x7f)
        };
        for ts in [0, 1, u64::MAX, 1 << 63] {
            for off in [0, i64::MIN, i64::MAX, -1, 1] {
                let _ = pcapng_ts_ns(ts, unit, off);
            }
        }
    }
    assert_eq!(pcapng_ts_ns(u64::MAX, TsUnit::Pow10(0), 0), u64::MAX);
    assert_eq!(pcapng_ts_ns(5, TsUnit::Pow10(6), -1), 0);
    assert_eq!(pcapng_ts_ns(1, TsUnit::Pow10(0), i64::MAX), u64::MAX);
    assert_eq!(pcapng_ts_ns(3_000, TsUnit::Pow10(12), 0), 3);
    assert_eq!(pcapng_ts_ns(u64::MAX, TsUnit::Pow10(127), 0), 0);
    assert_eq!(pcapng_ts_ns(1 << 20, TsUnit::Pow2(20), 0), 1_000_000_000);
    assert_eq!(pcapng_ts_ns(1, TsUnit::Pow2(127), 5), 5_000_000_000);
}

// ---- damage ----

fn pcap_with(n: usize) -> Vec<u8> {
    let mut w = PcapWriter::new(Vec::new(), 1, false).unwrap();
    for i in 0..n {
        w.write(i as u64 * 1000, &[i as u8; 10], 10).unwrap();
    }
    w.finish().unwrap()
}

#[test]
fn pcap_truncated_mid_record_delivers_earlier_packets_then_error() {
    // Records are 26 bytes at 24, 50, 76; cut inside the third record's data.
    let mut b = pcap_with(3);
    b.truncate(76 + 16 + 4);
    let f = bytes_file(b);
    let mut r = f.reader();
    let mut batch = Vec::new();
    assert_eq!(r.next_batch(&mut batch, 10).unwrap(), 2);
    assert_eq!(batch.len(), 2);
    assert_eq!(batch[1].data, &[1; 10]);
    assert_eq!(r.position(), 76);
    batch.clear();
    let e = r.next_batch(&mut batch, 10).unwrap_err();
    assert!(batch.is_empty());
    assert_eq!(truncated_at(&e), (76, 26, 20));
    assert_eq!(
        e.to_string(),
        "mem.cap: offset 76: truncated: needs 26 bytes, 20 left in the file"
    );
    assert_eq!(r.next_batch(&mut batch, 10).unwrap(), 0);
    assert_eq!(r.next_batch(&mut batch, 10).unwrap(), 0);

    // Cut inside the record header.
    let mut b = pcap_with(3);
    b.truncate(50 + 7);
    let f = bytes_file(b);
    let (got, err) = read_all(&f);
    assert_eq!(got.len(), 1);
    assert_eq!(truncated_at(&err.unwrap()), (50, 16, 7));
}

#[test]
fn next_batch_respects_max_and_error_lands_on_its_own_call() {
    let mut b = pcap_with(5);
    b.truncate(b.len() - 1);
    let f = bytes_file(b);
    let mut r = f.reader();
    let mut batch = Vec::new();
    assert_eq!(r.next_batch(&mut batch, 0).unwrap(), 0);
    assert_eq!(r.next_batch(&mut batch, 3).unwrap(), 3);
    assert_eq!(r.next_batch(&mut batch, 3).unwrap(), 1);
    assert_eq!(batch.len(), 4);
    let e = r.next_batch(&mut batch, 3).unwrap_err();
    assert_eq!(e.offset, 24 + 4 * 26);
    assert_eq!(batch.len(), 4);
    assert_eq!(r.next_batch(&mut batch, 3).unwrap(), 0);
}

#[test]
fn pcap_huge_caplen_is_corrupt() {
    let mut b = pcap_with(2);
    b[50 + 8..50 + 12].copy_from_slice(&(300_000u32).to_le_bytes());
    let f = bytes_file(b);
    let (got, err) = read_all(&f);
    assert_eq!(got.len(), 1);
    assert_eq!(corrupt_at(&err.unwrap()).0, 50);
}

#[test]
fn pcap_caplen_above_snaplen_is_tolerated() {
    let mut w = PcapWriter::new(Vec::new(), 1, false).unwrap();
    w.write(0, &[3; 70_000], 70_000).unwrap();
    let f = bytes_file(w.finish().unwrap());
    let (got, err) = read_all(&f);
    assert!(err.is_none());
    assert_eq!(got[0].data.len(), 70_000);
}

#[test]
fn open_errors_at_offset_zero() {
    let e = CaptureFile::from_bytes("x", vec![]).err().unwrap();
    assert!(matches!(e.kind, CaptureErrorKind::Empty), "{e}");
    assert_eq!(e.to_string(), "x: the file is empty");
    let e = CaptureFile::from_bytes("x", vec![0xd4, 0xc3])
        .err()
        .unwrap();
    assert_eq!(truncated_at(&e), (0, 4, 2));
    let e = CaptureFile::from_bytes("x", b"GIF89a".to_vec())
        .err()
        .unwrap();
    assert!(matches!(e.kind, CaptureErrorKind::UnknownFormat));
    assert_eq!(e.offset, 0);
    assert_eq!(e.to_string(), "x: offset 0: not a pcap or pcapng file");
    let e = CaptureFile::from_bytes("x", pcap_with(0)[..20].to_vec())
        .err()
        .unwrap();
    assert_eq!(truncated_at(&e), (0, 24, 20));
    // A pcap header and nothing else is a valid empty capture.
    let f = CaptureFile::from_bytes("x", pcap_with(0)).unwrap();
    assert_eq!(read_all(&f).0.len(), 0);
}

#[test]
fn pcapng_bad_block_lengths_are_corrupt_at_block() {
    let base = {
        let mut b = shb(false);
        b.extend(idb(false, 1, &[]));
        b.extend(epb(false, 0, 1, &[1, 2, 3], 3));
        b
    };
    let at = base.len();
    let good = epb(false, 0, 2, &[4, 5], 2);

    // Total length below 12.
    let mut b = base.clone();
    let mut blk = good.clone();
    blk[4..8].copy_from_slice(&8u32.to_le_bytes());
    b.extend(blk);
    let (got, err) = count_err(b);
    assert_eq!(got, 1);
    assert_eq!(
        corrupt_at(&err.unwrap()),
        (at as u64, "block total length below 12")
    );

    // Not a multiple of 4.
    let mut b = base.clone();
    let mut blk = good.clone();
    blk[4..8].copy_from_slice(&33u32.to_le_bytes());
    b.extend(blk);
    let (_, err) = count_err(b);
    assert_eq!(
        corrupt_at(&err.unwrap()),
        (at as u64, "block total length not a multiple of 4")
    );

    // Trailing length differs.
    let mut b = base.clone();
    let mut blk = good.clone();
    let n = blk.len();
    blk[n - 4..].copy_from_slice(&(n as u32 + 4).to_le_bytes());
    b.extend(blk);
    let (got, err) = count_err(b);
    assert_eq!(got, 1);
    assert_eq!(
        corrupt_at(&err.unwrap()),
        (
            at as u64,
            "block trailing length differs from leading length"
        )
    );

    // Longer than the file: truncated.
    let mut b = base.clone();
    let mut blk = good.clone();
    let n = blk.len();
    blk[4..8].copy_from_slice(&(n as u32 + 400).to_le_bytes());
    b.extend(blk);
    let (_, err) = count_err(b);
    assert_eq!(
        truncated_at(&err.unwrap()),
        (at as u64, n as u64 + 400, n as u64)
    );

    // caplen past the block's data area.
    let mut b = base.clone();
    let mut blk = good.clone();
    blk[20..24].copy_from_slice(&5u32.to_le_bytes());
    b.extend(blk);
    let (_, err) = count_err(b);
    assert_eq!(
        corrupt_at(&err.unwrap()),
        (at as u64, "packet data overruns its block")
    );

    // Packet before any interface.
    let mut b = shb(false);
    let epb_at = b.len() as u64;
    b.extend(epb(false, 0, 1, &[1], 1));
    let (_, err) = count_err(b);
    assert_eq!(
        corrupt_at(&err.unwrap()),
        (epb_at, "packet for unknown interface")
    );

    // Truncated mid-block (cut inside the second EPB): first packet, then Truncated at the block.
    let mut b = base.clone();
    b.extend(&good[..good.len() - 6]);
    let (got, err) = count_err(b);
    assert_eq!(got, 1);
    assert_eq!(
        truncated_at(&err.unwrap()),
        (at as u64, good.len() as u64, good.len() as u64 - 6)
    );

    // Fewer than 12 bytes after the last block.
    let mut b = base.clone();
    b.extend([0u8; 5]);
    let (_, err) = count_err(b);
    assert_eq!(truncated_at(&err.unwrap()), (at as u64, 12, 5));

    // Bad byte-order magic in a second section header.
    let mut b = base.clone();
    let mut s = shb(false);
    s[8..12].copy_from_slice(&[1, 2, 3, 4]);
    b.extend(s);
    let (_, err) = count_err(b);
    assert_eq!(corrupt_at(&err.unwrap()).0, at as u64);
}

// ---- opening real files ----

fn temp_path(tag: &str) -> PathBuf {
    std::env::temp_dir().join(format!("wirespeed-capture-{}-{tag}", std::process::id()))
}

#[test]
fn open_maps_regular_file() {
    let p = temp_path("regular.pcap");
    std::fs::write(&p, pcap_with(3)).unwrap();
    let f = CaptureFile::open(&p).unwrap();
    assert!(matches!(f.data, Backing::Map(_)));
    assert_eq!(f.path(), p.as_path());
    assert_eq!(f.len(), 24 + 3 * 26);
    assert_eq!(read_all(&f).0.len(), 3);
    std::fs::write(&p, b"").unwrap();
    let e = CaptureFile::open(&p).err().unwrap();
    assert!(matches!(e.kind, CaptureErrorKind::Empty), "{e}");
    std::fs::remove_file(&p).unwrap();
    let e = CaptureFile::open(&p).err().unwrap();
    assert!(matches!(e.kind, CaptureErrorKind::Io(_)));
    assert_eq!(e.offset, 0);
}

#[cfg(unix)]
#[test]
fn open_reads_fifo_into_memory() {
    let p = temp_path("fifo.pcap");
    let _ = std::fs::remove_file(&p);
    let ok = std::process::Command::new("mkfifo")
        .arg(&p)
        .status()
        .map(|s| s.success());
    if ok.ok() != Some(true) {
        eprintln!("skip: mkfifo unavailable");
        return;
    }
    let p2 = p.clone();
    let writer = std::thread::spawn(move || std::fs::write(&p2, pcap_with(4)).unwrap());
    let f = CaptureFile::open(&p).unwrap();
    writer.join().unwrap();
    assert!(matches!(f.data, Backing::Owned(_)));
    assert_eq!(read_all(&f).0.len(), 4);
    std::fs::remove_file(&p).unwrap();
}

/// Write `n` packets of 1000 bytes, packet `i` holding `payload(i)`, to a pcap file at `path`.
fn write_numbered(path: &Path, n: u32, payload: impl Fn(u32) -> Vec<u8>) {
    let f = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    let mut w = PcapWriter::new(f, 1, false).unwrap();
    for i in 0..n {
        w.write(u64::from(i) * 1000, &payload(i), 1000).unwrap();
    }
    w.finish().unwrap();
}

/// Read the rest of the file in batches of `max`, checking that packet `i` (counted from
/// `from`) holds `payload(i)`, calling `after` with the reader after each batch; returns the
/// number of packets read in all (`from` included).
fn read_numbered(
    reader: &mut PacketReader<'_>,
    from: u32,
    max: usize,
    payload: impl Fn(u32) -> Vec<u8>,
    mut after: impl FnMut(&PacketReader<'_>),
) -> u32 {
    let mut batch = Vec::new();
    let mut count = from;
    loop {
        batch.clear();
        match reader.next_batch(&mut batch, max).unwrap() {
            0 => return count,
            k => {
                for (j, p) in batch.iter().enumerate() {
                    assert_eq!(p.data, &payload(count + j as u32)[..]);
                }
                count += k as u32;
            }
        }
        after(reader);
    }
}

/// Reading a file larger than two release steps hands consumed pages back to the kernel; packets
/// borrowed before that must still read the same bytes afterwards.
#[test]
fn released_pages_read_back_the_same_bytes() {
    let dir = std::env::temp_dir().join(format!("wirespeed-capture-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("big.pcap");
    let payload = |i: u32| -> Vec<u8> {
        let mut v = vec![0u8; 1000];
        for (k, b) in v.iter_mut().enumerate() {
            *b = (i as usize * 31 + k) as u8;
        }
        v
    };
    let n = (2 * RELEASE_STEP / 1016 + 1000) as u32;
    write_numbered(&path, n, payload);
    let file = CaptureFile::open(&path).unwrap();
    let mut reader = file.reader();
    let mut first: Vec<RawPacket<'_>> = Vec::new();
    reader.next_batch(&mut first, 64).unwrap();
    let count = read_numbered(&mut reader, first.len() as u32, 128, payload, |_| {});
    assert_eq!(count, n);
    assert!(reader.released > 0, "the release path ran");
    for (i, p) in first.iter().enumerate() {
        assert_eq!(p.data, &payload(i as u32)[..], "packet {i} after release");
    }
    let _ = std::fs::remove_file(&path);
}

/// A shared scan maps pages ahead in whole steps claimed by one caller each: however many
/// threads call, the mapped mark ends at the first step past `scanned + SHARED_LEAD` (or the
/// file's end), never a step further; and a shared reader whose pages are mapped ahead and
/// released behind by its callers reads every packet's bytes.
#[test]
fn shared_scan_maps_ahead_in_claimed_steps() {
    let path = temp_path("shared-pages");
    // Past the release lag, so the release path runs too.
    let n = ((RELEASE_LAG + 4 * SHARED_LEAD) / 1016) as u32;
    let payload = |i: u32| vec![(i % 251) as u8; 1000];
    write_numbered(&path, n, payload);
    let file = CaptureFile::open(&path).unwrap();
    let len = file.bytes().len();
    let mark = |scanned: usize| {
        (scanned + SHARED_LEAD)
            .min(len)
            .next_multiple_of(SHARED_STEP)
    };
    let populated = AtomicUsize::new(0);
    file.populate_ahead(&populated, 0);
    assert_eq!(populated.load(Ordering::Relaxed), mark(0));
    // At the same position again: nothing to do.
    file.populate_ahead(&populated, 0);
    assert_eq!(populated.load(Ordering::Relaxed), mark(0));
    std::thread::scope(|s| {
        for t in 0..4usize {
            let (file, populated) = (&file, &populated);
            s.spawn(move || {
                for k in 0..50usize {
                    file.populate_ahead(populated, (k * 4 + t) * (len / 200));
                }
            });
        }
    });
    assert_eq!(populated.load(Ordering::Relaxed), mark(199 * (len / 200)));
    file.populate_ahead(&populated, len);
    assert_eq!(
        populated.load(Ordering::Relaxed),
        len.next_multiple_of(SHARED_STEP)
    );

    let populated = AtomicUsize::new(0);
    let mut released = 0;
    let mut reader = file.reader().shared();
    let count = read_numbered(&mut reader, 0, 100, payload, |r| {
        let at = r.position() as usize;
        file.populate_ahead(&populated, at);
        file.release_behind(&mut released, at);
    });
    assert_eq!(count, n);
    assert!(released > 0, "the release path ran");
    assert_eq!(reader.populated, 0, "a shared reader maps nothing itself");
    let _ = std::fs::remove_file(&path);
}

/// Version 2.0–2.2 pcap records hold len before caplen, as libpcap knows; 2.3 is swapped only
/// when the fields are the wrong way round.
#[test]
fn old_pcap_versions_swap_caplen_and_len() {
    for (minor, first, second, want_cap, want_len) in [
        (2u16, 60u32, 40u32, 40usize, 60u32),
        (3, 40, 60, 40, 60),
        (3, 60, 40, 40, 60),
        (4, 40, 60, 40, 60),
    ] {
        let mut b = vec![0xd4, 0xc3, 0xb2, 0xa1, 2, 0];
        b.extend_from_slice(&minor.to_le_bytes());
        b.extend_from_slice(&[0; 8]);
        b.extend_from_slice(&65535u32.to_le_bytes());
        b.extend_from_slice(&1u32.to_le_bytes());
        b.extend_from_slice(&[0; 8]);
        b.extend_from_slice(&first.to_le_bytes());
        b.extend_from_slice(&second.to_le_bytes());
        b.extend(std::iter::repeat_n(7u8, want_cap));
        let f = bytes_file(b);
        let (pkts, e) = read_all(&f);
        assert!(e.is_none(), "2.{minor}: {e:?}");
        assert_eq!(
            (pkts[0].data.len(), pkts[0].wire_len),
            (want_cap, want_len),
            "2.{minor}"
        );
    }
}

/// A classic pcap of packets with these lengths, each filled with `fill(i)`, and each record's
/// offset.
fn pcap_of(lens: &[usize], fill: impl Fn(usize) -> Vec<u8>) -> (Vec<u8>, Vec<u64>) {
    let mut w = PcapWriter::new(Vec::new(), 1, false).unwrap();
    let mut at = 24u64;
    let mut starts = Vec::new();
    for (i, &n) in lens.iter().enumerate() {
        let mut data = fill(i);
        data.resize(n, 0);
        starts.push(at);
        at += 16 + n as u64;
        w.write(1_000_000_000 + i as u64 * 1_000, &data, n as u32)
            .unwrap();
    }
    (w.finish().unwrap(), starts)
}

proptest::proptest! {
    /// A reader started at a record's offset reads what a reader from the start reads from
    /// there on; one stopped there ends exactly on it, and goes on when the limit is lifted.
    #[test]
    fn a_reader_from_a_record_reads_the_rest(
        lens in proptest::collection::vec(1usize..300, 1..40),
        pick in 0usize..40,
        seed in 0u8..=255,
    ) {
        let (b, starts) = pcap_of(&lens, |i| vec![seed.wrapping_add(i as u8); 300]);
        let f = bytes_file(b);
        let (all, e) = read_all(&f);
        proptest::prop_assert!(e.is_none());
        let k = pick % starts.len();
        let rest: Vec<_> = f.reader_at(starts[k]).unwrap().map(Result::unwrap).collect();
        proptest::prop_assert_eq!(&rest[..], &all[k..]);
        let mut r = f.reader();
        r.stop_at(starts[k]);
        let mut head = Vec::new();
        while r.next_batch(&mut head, 7).unwrap() > 0 {}
        proptest::prop_assert_eq!(&head[..], &all[..k]);
        proptest::prop_assert_eq!(r.position(), starts[k]);
        r.stop_at(u64::MAX);
        let mut tail = Vec::new();
        while r.next_batch(&mut tail, 7).unwrap() > 0 {}
        proptest::prop_assert_eq!(&tail[..], &all[k..]);
    }

    /// The guess may be wrong (a packet's bytes can look like records), and a reader from the
    /// start, stopped at it, tells: it lands exactly on the guess if and only if a record
    /// starts there.
    #[test]
    fn landing_on_a_guess_tells_whether_a_record_starts_there(
        lens in proptest::collection::vec(1usize..300, 1..40),
        from in 0u64..12_000,
        seed in 0u8..=255,
    ) {
        let (b, starts) = pcap_of(&lens, |i| {
            (0..300).map(|j| seed.wrapping_mul(j as u8).wrapping_add(i as u8)).collect()
        });
        let f = bytes_file(b);
        if let Some(g) = f.record_near(from) {
            proptest::prop_assert!(g >= from.max(24) && g < f.len());
            let mut r = f.reader();
            r.stop_at(g);
            let mut v = Vec::new();
            while r.next_batch(&mut v, 5).unwrap() > 0 {}
            proptest::prop_assert_eq!(r.position() == g, starts.contains(&g));
        }
    }

    /// Any bytes after a pcap header: the guess is inside the file, and a reader from it
    /// neither panics nor reads past the end.
    #[test]
    fn a_guess_in_noise_stays_in_the_file(
        noise in proptest::collection::vec(proptest::num::u8::ANY, 0..4_000),
        from in 0u64..4_100,
    ) {
        let (mut b, _) = pcap_of(&[], |_| Vec::new());
        b.extend_from_slice(&noise);
        let f = bytes_file(b);
        if let Some(at) = f.record_near(from) {
            proptest::prop_assert!(at >= from.max(24) && at < f.len());
            for p in f.reader_at(at).unwrap().flatten() {
                proptest::prop_assert!(p.data.len() <= noise.len());
            }
        }
    }
}

#[test]
fn pcapng_has_no_reader_from_the_middle() {
    let mut w = PcapngWriter::new(Vec::new()).unwrap();
    let i = w.add_interface(1).unwrap();
    w.write(i, 1, &[0; 60], 60).unwrap();
    let f = bytes_file(w.finish().unwrap());
    assert!(f.reader_at(28).is_none());
    assert!(f.record_near(0).is_none());
    let (b, _) = pcap_of(&[60], |_| Vec::new());
    let end = b.len() as u64;
    let f = bytes_file(b);
    assert!(f.reader_at(10).is_none() && f.reader_at(end + 1).is_none());
    assert_eq!(f.reader_at(end).unwrap().count(), 0);
}

/// A reader from the middle of a file gives back no page before its start (another reader's,
/// such as the first half's in a pass split between threads): its record of what it released
/// starts where it starts, and moves only behind it.
#[test]
fn a_reader_from_the_middle_releases_nothing_before_it() {
    // 113 MB: the reader starts past the distance it releases behind (48 MiB) and reads as
    // much again, so it releases once.
    let lens = vec![1_400usize; 80_000];
    let (b, starts) = pcap_of(&lens, |_| Vec::new());
    let f = bytes_file(b);
    let at = starts[40_000] as usize;
    let mut r = f.reader_at(at as u64).unwrap();
    let mut v = Vec::new();
    while r.next_batch(&mut v, 256).unwrap() > 0 {
        v.clear();
        assert!(r.released >= at, "released up to {} from {at}", r.released);
    }
    assert!(r.released > at, "released behind itself");
}
