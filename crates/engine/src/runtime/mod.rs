//! The runtime: the facade ([`Session`]), a pool of workers over one input ([`Pool`]), and the
//! two ways the pool is fed — the workers taking turns scanning a mapped file ([`scan`]), or a
//! reader thread dispatching by the symmetric hash ([`reader`]); sources that spread flows by
//! themselves (live rings) feed each worker directly ([`feed`]). One worker's pipeline is
//! [`crate::Worker`]; pipes and standard input are read in windows (`input`).

pub mod feed;
pub mod pool;
pub mod reader;
pub mod scan;
pub mod session;
pub mod watch;

pub use feed::{Feed, FeedCounters, Published, WorkerSnapshot};
pub use pool::{reserved_bytes, worker_config, DispatchStats, ParallelConfig, Pool};
pub use reader::fast_hash;
pub use session::Session;

#[cfg(test)]
mod tests {
    use super::pool::*;
    use super::reader::*;

    use crate::rss;
    use crate::worker::EngineConfig;
    use proptest::prelude::*;
    use wirespeed_capture::{CaptureFile, RawPacket};
    use wirespeed_wire::{decode, DecodeConfig, LinkType};

    /// The fast path must agree with the full decoder whenever it answers: same end-points, and
    /// a packet the decoder keys to a flow.
    fn agrees(link: u32, data: &[u8]) -> Result<bool, String> {
        let p = RawPacket {
            ts_ns: 0,
            wire_len: data.len() as u32,
            link,
            iface: 0,
            data,
        };
        // Any key: the two paths must agree under every one.
        let key = rss::DispatchKey::from_seed(data.len() as u64);
        let Some(h) = fast_hash(&key, &p) else {
            return Ok(false);
        };
        let d = decode(LinkType(link), data, &DecodeConfig::default())
            .map_err(|e| format!("fast path took a frame the decoder drops: {e:?}"))?;
        if d.frag.is_some() {
            return Err("fast path took a fragment".into());
        }
        let alen = if d.ip_version == 4 { 4 } else { 16 };
        let full = key.hash(&d.src[..alen], &d.dst[..alen], (d.src_port, d.dst_port));
        if full != h {
            return Err(format!("hash {h:#x} != decoder's {full:#x}"));
        }
        Ok(true)
    }

    #[test]
    fn fast_path_agrees_with_decoder_on_the_corpus() {
        let Some(corpus) = wirespeed_testkit::corpus("fast_path_agrees_with_decoder") else {
            return;
        };
        let Ok(rd) = std::fs::read_dir(corpus.pcap_dir()) else {
            panic!("cannot read {}", corpus.pcap_dir().display());
        };
        let (mut fast, mut all) = (0u64, 0u64);
        for e in rd.flatten() {
            let Ok(f) = CaptureFile::open(&e.path()) else {
                continue;
            };
            for p in f.reader().map_while(Result::ok) {
                all += 1;
                match agrees(p.link, p.data) {
                    Ok(true) => fast += 1,
                    Ok(false) => {}
                    Err(m) => panic!("{}: {m}", e.path().display()),
                }
            }
        }
        eprintln!("fast path: {fast} of {all} corpus packets");
        assert!(fast * 2 > all, "{fast} of {all}");
    }

    fn frame() -> impl Strategy<Value = Vec<u8>> {
        // Ethernet + IPv4 or IPv6 headers with random fields, then random bytes: the fields the
        // fast path checks (version, lengths, flags, protocol, ports) all vary.
        (
            any::<bool>(),
            proptest::collection::vec(any::<u8>(), 0..80),
            0u8..3,
            any::<u8>(),
            any::<u16>(),
            any::<bool>(),
        )
            .prop_map(|(v6, mut rest, proto, vihl, len, wild)| {
                let mut f = vec![0u8; 12];
                f.extend_from_slice(if v6 { &[0x86, 0xdd] } else { &[0x08, 0x00] });
                let hdr = if v6 { 40 } else { 20 };
                rest.resize(rest.len().max(hdr), 0);
                let p = [6u8, 17, 47][proto as usize];
                if v6 {
                    rest[0] = if wild { vihl } else { 0x60 };
                    rest[4..6].copy_from_slice(&(len % 128).to_be_bytes());
                    rest[6] = p;
                } else {
                    rest[2..4].copy_from_slice(&(len % 160).to_be_bytes());
                    rest[9] = p;
                    if wild {
                        rest[0] = vihl;
                    } else {
                        // A plausible header: version 4, no fragment, any header length.
                        rest[0] = 0x40 | (vihl & 0x0f);
                        rest[6] &= 0x40;
                        rest[7] = 0;
                    }
                }
                f.extend_from_slice(&rest);
                f
            })
    }

    #[test]
    fn redirection_table_is_the_modulo() {
        for n in 1..=128 {
            let t = redirection_table(n);
            for (i, &q) in t.iter().enumerate() {
                assert_eq!(usize::from(q), (i % n), "{n} workers, entry {i}");
            }
        }
    }

    #[test]
    fn worker_tables_share_the_capacity() {
        let cap = |total: usize, n: usize| {
            let mut c = EngineConfig::default();
            c.flow.capacity = total;
            worker_config(&c, n).flow.capacity
        };
        // 2^20 over two: 2^19 each, since 1/8 more would double each index.
        assert_eq!(cap(1 << 20, 2), 1 << 19);
        // 1,000,000 over two: 500,000 + 1/8 = 562,500, within the same index (2^20 entries).
        assert_eq!(cap(1_000_000, 2), 524_288);
        assert_eq!(cap(600_000, 2), 337_500);
        assert_eq!(cap(1 << 20, 1), 1 << 20);
        assert_eq!(cap(5, 3), 2);
    }

    /// The DPI pools are bounds of the configuration too: N workers together hold about the
    /// configured number of contexts and buffers (1/8 more at most), not N times as many.
    #[test]
    fn worker_dpi_pools_share_the_configured_bound() {
        let dpi = |contexts: usize, buffers: usize, n: usize| {
            let mut c = EngineConfig::default();
            c.dpi.contexts = contexts;
            c.dpi.reasm_buffers = buffers;
            let w = worker_config(&c, n).dpi;
            (w.contexts, w.reasm_buffers)
        };
        // 65,536 × 9/8 = 73,728 over two.
        assert_eq!(dpi(1 << 16, 1024, 2), (36_864, 576));
        assert_eq!(dpi(1 << 16, 1024, 1), (1 << 16, 1024));
        // Small pools: at least one each, never more than the whole.
        assert_eq!(dpi(3, 1, 8), (1, 1));
        assert_eq!(dpi(0, 0, 4), (0, 0));
        for n in 1..=64 {
            let (c, b) = dpi(1 << 16, 1024, n);
            assert!(
                c * n <= (1 << 16) * 9 / 8 + n,
                "{n} workers: {c} contexts each"
            );
            assert!(b * n <= 1024 * 9 / 8 + n, "{n} workers: {b} buffers each");
        }
    }

    proptest! {
        #[test]
        fn fast_path_agrees_with_decoder(f in frame()) {
            prop_assert!(agrees(1, &f).is_ok(), "{:?}", agrees(1, &f));
        }

        #[test]
        fn fast_path_agrees_with_decoder_on_any_bytes(f in proptest::collection::vec(any::<u8>(), 0..100)) {
            prop_assert!(agrees(1, &f).is_ok(), "{:?}", agrees(1, &f));
        }
    }
}
