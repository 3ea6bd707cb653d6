//! Live capture: one TPACKET_V3 ring per worker and interface, spread by the kernel's fanout
//! hash, each worker processing its ring blocks in place.

use crate::sys::{self, BpfInsn, KernelStats, RxRing};
use std::io;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use wirespeed_capture::RawPacket;
use wirespeed_engine::{AppStats, Counters, EngineConfig, Worker};
use wirespeed_export::RecordSink;

/// What to capture and how.
#[derive(Clone, Debug)]
pub struct LiveConfig {
    /// Interfaces to read.
    pub ifaces: Vec<String>,
    /// Worker threads (each reads its own ring on every interface).
    pub workers: usize,
    /// Pin worker `i` to core `i mod cores`.
    pub pin: bool,
    /// Ring memory for all workers and interfaces together, MiB: the buffer that absorbs
    /// processing jitter. Rings are made of 1 MiB blocks, at least 2 per ring.
    pub buffer_mb: usize,
    /// Classic BPF program run by the kernel before a packet enters a ring.
    pub filter: Option<Vec<BpfInsn>>,
    /// Switch to this user once the sockets are open.
    pub user: Option<String>,
    /// Print a status line this often (none when zero).
    pub status_every: Duration,
    /// Stop by itself after this long (tests, benchmarks).
    pub duration: Option<Duration>,
    /// The engine per worker.
    pub engine: EngineConfig,
}

/// Counters the workers publish while running (read by the status line).
#[derive(Default)]
struct Shared {
    packets: AtomicU64,
    bytes: AtomicU64,
    records: AtomicU64,
    kernel_packets: AtomicU64,
    kernel_drops: AtomicU64,
    kernel_freezes: AtomicU64,
    vlan_stripped: AtomicU64,
}

/// How a live run went.
#[derive(Debug, Default)]
pub struct LiveOutcome {
    /// Engine counters of all workers added up.
    pub counters: Counters,
    /// Per-application totals of all workers.
    pub apps: AppStats,
    /// Kernel counters of every socket, added up over the run.
    pub kernel: KernelStats,
    /// Frames whose VLAN tag the kernel had already removed (their flows are keyed without it).
    pub vlan_stripped: u64,
    /// Seconds the capture ran.
    pub elapsed_s: f64,
}

const BLOCK: usize = 1 << 20;

/// Run until `stop` is set (SIGINT/SIGTERM) or `cfg.duration` passes; every open flow is then
/// ended and written to the sinks. Worker `i` writes to `sinks[i]`.
pub fn run<S: RecordSink + Send>(
    cfg: &LiveConfig,
    sinks: Vec<S>,
    stop: Arc<AtomicBool>,
    status: &mut dyn FnMut(&str),
) -> io::Result<LiveOutcome> {
    let n = cfg.workers.max(1);
    if sinks.len() != n {
        return Err(io::Error::other("one sink per worker"));
    }
    if cfg.ifaces.is_empty() {
        return Err(io::Error::other("no interface"));
    }
    let per_ring = (cfg.buffer_mb << 20) / (n * cfg.ifaces.len());
    let blocks = (per_ring / BLOCK).max(2);
    // Every socket is open before privileges go; one fanout group per interface.
    let group_base = (std::process::id() as u16).wrapping_mul(31);
    let mut rings: Vec<Vec<(RxRing, u32)>> = (0..n).map(|_| Vec::new()).collect();
    for (k, iface) in cfg.ifaces.iter().enumerate() {
        let link = link_type(iface);
        for r in rings.iter_mut() {
            let ring = RxRing::open(
                iface,
                BLOCK,
                blocks,
                cfg.filter.as_deref(),
                (n > 1).then_some(group_base.wrapping_add(k as u16)),
            )
            .map_err(|e| io::Error::new(e.kind(), format!("{iface}: {e}")))?;
            r.push((ring, link));
        }
    }
    if let Some(u) = &cfg.user {
        sys::drop_privileges(u)
            .map_err(|e| io::Error::new(e.kind(), format!("--user {u}: {e}")))?;
    }
    status(&format!(
        "live: capturing on {} with {} workers, rings of {} blocks of 1 MiB",
        cfg.ifaces.join(","),
        n,
        blocks
    ));
    let shared = Arc::new(Shared::default());
    let cores = if cfg.pin {
        core_affinity::get_core_ids().unwrap_or_default()
    } else {
        Vec::new()
    };
    let start = Instant::now();
    let mut workers: Vec<Worker<S>> = sinks
        .into_iter()
        .map(|s| Worker::new(cfg.engine, s, false))
        .collect();
    let results: Vec<io::Result<()>> = std::thread::scope(|sc| {
        let mut handles = Vec::new();
        for (i, (w, my_rings)) in workers.iter_mut().zip(rings).enumerate() {
            let stop = &stop;
            let shared = &shared;
            let core = (!cores.is_empty()).then(|| cores[i % cores.len()]);
            let bs = cfg.engine.batch_size.clamp(1, MAX_BATCH);
            handles.push(sc.spawn(move || {
                if let Some(c) = core {
                    core_affinity::set_for_current(c);
                }
                worker_loop(w, my_rings, stop, shared, bs)
            }));
        }
        // The status line and the clock that stops the run.
        let mut last_status = Instant::now();
        let mut last_packets = 0u64;
        while !stop.load(Ordering::Relaxed) {
            std::thread::sleep(Duration::from_millis(50));
            if handles.iter().any(|h| h.is_finished()) {
                // A worker failed: stop the others.
                stop.store(true, Ordering::Relaxed);
            }
            if cfg.duration.is_some_and(|d| start.elapsed() >= d) {
                stop.store(true, Ordering::Relaxed);
            }
            if !cfg.status_every.is_zero() && last_status.elapsed() >= cfg.status_every {
                let dt = last_status.elapsed().as_secs_f64();
                last_status = Instant::now();
                let p = shared.packets.load(Ordering::Relaxed);
                status(&format!(
                    "live: {:.0} s, {} packets ({:.1} kpps), {} flows ended, kernel: {} seen, {} dropped, {} queue freezes",
                    start.elapsed().as_secs_f64(),
                    p,
                    (p - last_packets) as f64 / dt / 1e3,
                    shared.records.load(Ordering::Relaxed),
                    shared.kernel_packets.load(Ordering::Relaxed),
                    shared.kernel_drops.load(Ordering::Relaxed),
                    shared.kernel_freezes.load(Ordering::Relaxed),
                ));
                last_packets = p;
            }
        }
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(io::Error::other("a worker thread panicked")))
            })
            .collect()
    });
    let mut out = LiveOutcome {
        elapsed_s: start.elapsed().as_secs_f64(),
        ..LiveOutcome::default()
    };
    for w in &workers {
        out.counters.add(&w.counters());
        for (k, v) in w.apps() {
            let e = out.apps.entry(k).or_insert([0; 3]);
            for (a, b) in e.iter_mut().zip(v) {
                *a += b;
            }
        }
    }
    out.kernel = KernelStats {
        packets: shared.kernel_packets.load(Ordering::Relaxed),
        drops: shared.kernel_drops.load(Ordering::Relaxed),
        freezes: shared.kernel_freezes.load(Ordering::Relaxed),
    };
    out.vlan_stripped = shared.vlan_stripped.load(Ordering::Relaxed);
    for r in results {
        r?;
    }
    // Every flow was ended by its worker; write out what the sinks still buffer.
    for w in workers {
        w.finish()?;
    }
    Ok(out)
}

/// Largest batch handed to a worker at once (a stack array, so no allocation per block).
const MAX_BATCH: usize = 256;

/// The pcap link type of what an AF_PACKET raw socket on `iface` delivers.
fn link_type(iface: &str) -> u32 {
    let t = std::fs::read_to_string(format!("/sys/class/net/{iface}/type")).unwrap_or_default();
    match t.trim() {
        // Raw IP devices (tun, some cellular modems): no link header.
        "65534" | "519" => 101,
        // Ethernet, loopback (with a zeroed Ethernet header), and the rest.
        _ => 1,
    }
}

fn worker_loop<S: RecordSink>(
    w: &mut Worker<S>,
    mut rings: Vec<(RxRing, u32)>,
    stop: &AtomicBool,
    shared: &Shared,
    bs: usize,
) -> io::Result<()> {
    let fds: Vec<_> = rings.iter().map(|(r, _)| r.fd()).collect();
    let mut idle_since = Instant::now();
    let mut last_stats = Instant::now();
    let mut res = Ok(());
    let mut published = 0u64;
    while !stop.load(Ordering::Relaxed) && res.is_ok() {
        let mut got = false;
        for (ring, link) in rings.iter_mut() {
            // A bounded number of blocks per ring and turn, so no interface starves another.
            for _ in 0..64 {
                let Some(block) = ring.next_block() else {
                    break;
                };
                got = true;
                let (n, bytes, vlan) = process_block(w, block.bytes(), *link, bs, &mut res);
                drop(block);
                shared.packets.fetch_add(n, Ordering::Relaxed);
                shared.bytes.fetch_add(bytes, Ordering::Relaxed);
                shared.vlan_stripped.fetch_add(vlan, Ordering::Relaxed);
            }
        }
        if got {
            idle_since = Instant::now();
        } else {
            sys::poll_readable(&fds, 100)?;
            // A quiet link: let idle flows expire by the kernel's clock (the one that stamps
            // packets), once a second.
            if idle_since.elapsed() >= Duration::from_secs(1) {
                w.advance_clock(sys::realtime_ns());
                res = w.process_batch(&[]);
                idle_since = Instant::now();
            }
        }
        if last_stats.elapsed() >= Duration::from_millis(500) {
            last_stats = Instant::now();
            publish(w, &rings, shared, &mut published);
        }
    }
    // Shutdown: what is already in the rings is processed, then every flow is ended.
    for (ring, link) in rings.iter_mut() {
        while let Some(block) = ring.next_block() {
            let (n, bytes, vlan) = process_block(w, block.bytes(), *link, bs, &mut res);
            drop(block);
            shared.packets.fetch_add(n, Ordering::Relaxed);
            shared.bytes.fetch_add(bytes, Ordering::Relaxed);
            shared.vlan_stripped.fetch_add(vlan, Ordering::Relaxed);
        }
    }
    res?;
    w.flush()?;
    publish(w, &rings, shared, &mut published);
    Ok(())
}

/// Publish what changed since the last call: records written (cumulative per worker, hence
/// `last`) and the kernel's counters (reset by each read).
fn publish<S: RecordSink>(w: &Worker<S>, rings: &[(RxRing, u32)], shared: &Shared, last: &mut u64) {
    let r = w.counters().records;
    shared.records.fetch_add(r - *last, Ordering::Relaxed);
    *last = r;
    for (r, _) in rings {
        if let Ok(s) = r.stats() {
            shared
                .kernel_packets
                .fetch_add(s.packets, Ordering::Relaxed);
            shared.kernel_drops.fetch_add(s.drops, Ordering::Relaxed);
            shared
                .kernel_freezes
                .fetch_add(s.freezes, Ordering::Relaxed);
        }
    }
}

fn rd32(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_ne_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

fn rd16(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_ne_bytes(b.get(at..at + 2)?.try_into().ok()?))
}

/// Run the packets of one ring block (`tpacket_block_desc`, then `tpacket3_hdr` records) through
/// the worker in batches; returns packets, bytes and frames whose VLAN tag the kernel stripped.
/// The block comes from the kernel but is parsed with bounds checks all the same.
fn process_block<S: RecordSink>(
    w: &mut Worker<S>,
    b: &[u8],
    link: u32,
    bs: usize,
    res: &mut io::Result<()>,
) -> (u64, u64, u64) {
    const EMPTY: RawPacket<'static> = RawPacket {
        ts_ns: 0,
        wire_len: 0,
        link: 0,
        iface: 0,
        data: &[],
    };
    let mut batch = [EMPTY; MAX_BATCH];
    let mut k = 0;
    let (mut n, mut bytes, mut vlan) = (0u64, 0u64, 0u64);
    let num = rd32(b, 12).unwrap_or(0) as usize;
    let mut off = rd32(b, 16).unwrap_or(0) as usize;
    // A block holds at most block_size / 32 packets whatever its header says.
    for _ in 0..num.min(b.len() / 32) {
        let (Some(next), Some(sec), Some(nsec), Some(snap), Some(len), Some(st), Some(mac)) = (
            rd32(b, off),
            rd32(b, off + 4),
            rd32(b, off + 8),
            rd32(b, off + 12),
            rd32(b, off + 16),
            rd32(b, off + 20),
            rd16(b, off + 24),
        ) else {
            break;
        };
        let start = off + usize::from(mac);
        if let Some(data) = b.get(start..start + snap as usize) {
            if st & libc::TP_STATUS_VLAN_VALID != 0 {
                vlan += 1;
            }
            batch[k] = RawPacket {
                ts_ns: u64::from(sec) * 1_000_000_000 + u64::from(nsec),
                wire_len: len,
                link,
                iface: 0,
                data,
            };
            k += 1;
            n += 1;
            bytes += data.len() as u64;
            if k == bs {
                if res.is_ok() {
                    *res = w.process_batch(&batch[..k]);
                }
                k = 0;
            }
        }
        if next == 0 {
            break;
        }
        off += next as usize;
    }
    if k > 0 && res.is_ok() {
        *res = w.process_batch(&batch[..k]);
    }
    (n, bytes, vlan)
}
