//! Live capture: one TPACKET_V3 ring per worker and interface, spread by the kernel's fanout
//! hash, each worker processing its ring blocks in place.

use crate::link::LinkWatch;
use crate::sys::{self, BpfInsn, KernelStats, RxRing};
use std::io;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use wirespeed_act::PacketAct;
use wirespeed_capture::RawPacket;
use wirespeed_engine::runtime::feed::MAX_BATCH;
use wirespeed_engine::runtime::Feed;
use wirespeed_engine::{AppStats, Counters, EngineConfig, ParallelConfig, Session};
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
    /// Publish the run's counters here as it goes (a metrics endpoint).
    pub metrics: Option<Arc<crate::metrics::RunStats>>,
    /// Act on a policy while capturing (`inline --datapath ebpf`): None to only classify.
    pub act: Option<CaptureAct>,
    /// Read each worker's packets from the source this makes (called once per worker) instead
    /// of AF_PACKET rings on `ifaces` (`inline --datapath ebpf --capture ringbuf`: the copies
    /// of the verdict program's ring buffer); the interfaces still name the run and their
    /// links are watched.
    pub source: Option<FeedMaker>,
    /// With `source`: the kernel's counters of that source (`live --capture xdp`: frames the
    /// program saw, and those its sockets dropped), shown and published as the rings' are.
    /// None: a source without such counters, of which none are shown rather than zeros.
    pub source_stats: Option<SourceStats>,
}

/// Reads a [`FeedMaker`]'s source's kernel counters.
#[derive(Clone)]
pub struct SourceStats(pub Arc<dyn Fn() -> KernelStats + Send + Sync>);

impl std::fmt::Debug for SourceStats {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SourceStats")
    }
}

/// Makes one worker's packet source.
#[derive(Clone)]
pub struct FeedMaker(pub Arc<dyn Fn() -> io::Result<Box<dyn Feed>> + Send + Sync>);

impl std::fmt::Debug for FeedMaker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("FeedMaker")
    }
}

/// Acting on what is captured (`wirespeed inline --datapath ebpf`): the packets are copies,
/// so nothing is done to them here; each flow's final action (where the NFQUEUE path hands a
/// flow to the kernel) goes to `enforce`, which has the kernel act on the flow's later packets,
/// and each such flow's end too. The rings then take only the packets each interface receives
/// (its ingress, where the enforcing program runs; a forwarded packet is seen once).
#[derive(Clone)]
pub struct CaptureAct {
    /// The policy, shared by the workers (replaced on SIGHUP).
    pub policy: Arc<wirespeed_act::PolicyCell>,
    /// Told of each flow's final action and of its end.
    pub enforce: Arc<dyn wirespeed_act::Enforce>,
    /// Attached to each capture socket once it is open (`--copy undecided`: an eBPF socket
    /// filter that keeps most packets of decided flows out of the rings); None: every packet
    /// the interface receives is copied.
    pub copy_filter: Option<CopyFilter>,
}

/// Attaches a filter to one capture socket (an AF_PACKET socket of type SOCK_RAW).
pub type CopyFilter = Arc<dyn Fn(std::os::fd::BorrowedFd<'_>) -> io::Result<()> + Send + Sync>;

impl std::fmt::Debug for CaptureAct {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CaptureAct")
    }
}

/// The kernel's counters of every ring, added up as the workers publish them (read by the status
/// line).
#[derive(Default)]
struct Kernel {
    /// Socket errors the workers saw, for the status output, in order.
    notices: std::sync::Mutex<Vec<String>>,
    /// Per interface (in `ifaces` order): a socket reported the link going down (ENETDOWN)
    /// since the last tick. An observation for the tick's [`LinkWatch`], not a report.
    went_down: Box<[AtomicBool]>,
    packets: AtomicU64,
    drops: AtomicU64,
    freezes: AtomicU64,
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
    /// What the learned state did (None when no learned classifier ran).
    pub learn: Option<wirespeed_engine::learn::LearnStats>,
}

const BLOCK: usize = 1 << 20;

/// Run until `stop` is set (SIGINT/SIGTERM) or `cfg.duration` passes; every open flow is then
/// ended and written to the sinks. Worker `i` writes to `sink(i)`. The workers are a
/// [`Session`]'s, each reading its own rings (`RingFeed`): the flow table and the DPI pools
/// are split between them as for a capture file, not given whole to each.
///
/// `opened` is called once every capture socket is open, before privileges are dropped and
/// before the first sink is asked for: the place to create output files, so that a run that
/// cannot capture leaves none behind.
pub fn run<S: RecordSink + Send>(
    cfg: &LiveConfig,
    sink: impl FnMut(usize) -> S,
    stop: Arc<AtomicBool>,
    opened: &mut dyn FnMut() -> io::Result<()>,
    status: &mut dyn FnMut(&str),
) -> io::Result<LiveOutcome> {
    let n = cfg.workers.max(1);
    if cfg.ifaces.is_empty() {
        return Err(io::Error::other("no interface"));
    }
    let per_ring = (cfg.buffer_mb << 20) / (n * cfg.ifaces.len());
    let blocks = (per_ring / BLOCK).max(2);
    let kernel = Arc::new(Kernel {
        went_down: cfg.ifaces.iter().map(|_| AtomicBool::new(false)).collect(),
        ..Kernel::default()
    });
    // Every socket is open before privileges go.
    let feeds = match cfg.source {
        Some(_) => Vec::new(),
        None => open_rings(cfg, n, blocks, &kernel)?,
    };
    // The links' state, read every tick from the interfaces themselves (not from packets).
    let probe = sys::LinkProbe::new();
    if let Err(e) = &probe {
        status(&format!("live: link state unknown, not reported: {e}"));
    }
    let mut links: Vec<LinkWatch> = cfg.ifaces.iter().map(|_| LinkWatch::new()).collect();
    opened()?;
    if let Some(u) = &cfg.user {
        sys::drop_privileges(u)
            .map_err(|e| io::Error::new(e.kind(), format!("--user {u}: {e}")))?;
    }
    let kernel_now = || -> Option<KernelStats> {
        match (&cfg.source, &cfg.source_stats) {
            (None, _) => Some(KernelStats {
                packets: kernel.packets.load(Ordering::Relaxed),
                drops: kernel.drops.load(Ordering::Relaxed),
                freezes: kernel.freezes.load(Ordering::Relaxed),
            }),
            (Some(_), Some(stats)) => Some((stats.0)()),
            (Some(_), None) => None,
        }
    };
    let feeds: Vec<Box<dyn Feed>> = match &cfg.source {
        Some(make) => (0..n).map(|_| (make.0)()).collect::<io::Result<_>>()?,
        None => feeds
            .into_iter()
            .map(|f| Box::new(f) as Box<dyn Feed>)
            .collect(),
    };
    if cfg.source.is_some() {
        status(&format!(
            "live: ready: capturing on {} with {} workers, from the kernel's copies",
            cfg.ifaces.join(","),
            n
        ));
    } else {
        status(&format!(
            "live: ready: capturing on {} with {} workers, rings of {} blocks of 1 MiB",
            cfg.ifaces.join(","),
            n,
            blocks
        ));
    }
    let par = ParallelConfig {
        workers: n,
        pin: cfg.pin,
        buffer_mb: cfg.buffer_mb,
        reader_thread: false,
    };
    let mut session = Session::new(cfg.engine.clone(), par, sink, true);
    session.name_source(&cfg.ifaces.join(","));
    if let Some(a) = &cfg.act {
        // The hand-off on: a final action goes to the enforcer.
        session.act(&a.policy, true);
        session.enforce(&a.enforce);
    }
    if let Some(m) = &cfg.metrics {
        session.publish_to(m.published().clone());
    }
    let start = Instant::now();
    let mut last_status = Instant::now();
    let mut last_packets = 0u64;
    let run = session.run_feeds(feeds, &stop, cfg.pin, &mut |c| {
        if let Ok(mut n) = kernel.notices.lock() {
            for line in n.drain(..) {
                status(&line);
            }
        }
        for ((iface, watch), went) in cfg.ifaces.iter().zip(&mut links).zip(&*kernel.went_down) {
            let went_down = went.swap(false, Ordering::Relaxed);
            let up_now = probe.as_ref().ok().and_then(|p| p.is_up(iface).ok());
            for e in watch.observe(went_down, up_now) {
                status(&LinkWatch::line(iface, e));
            }
        }
        // A source of copies other than the rings without counters of its own (the eBPF ring
        // buffer): none are published rather than zeros.
        let k = kernel_now();
        if let (Some(m), Some(k)) = (cfg.metrics.as_ref(), k.as_ref()) {
            m.set_kernel(k);
        }
        if !cfg.status_every.is_zero() && last_status.elapsed() >= cfg.status_every {
            let dt = last_status.elapsed().as_secs_f64();
            last_status = Instant::now();
            let p = c.packets.load(Ordering::Relaxed);
            let sockets = match k {
                Some(k) => format!(
                    ", kernel: {} seen, {} dropped, {} queue freezes",
                    k.packets, k.drops, k.freezes
                ),
                None => String::new(),
            };
            status(&format!(
                "live: {:.0} s, {} packets ({:.1} kpps), {} flows ended{sockets}",
                start.elapsed().as_secs_f64(),
                p,
                (p - last_packets) as f64 / dt / 1e3,
                c.records.load(Ordering::Relaxed),
            ));
            last_packets = p;
        }
        cfg.duration.is_none_or(|d| start.elapsed() < d)
    });
    let out = LiveOutcome {
        elapsed_s: start.elapsed().as_secs_f64(),
        counters: session.counters(),
        apps: session.apps(),
        learn: session.learn_stats(),
        kernel: kernel_now().unwrap_or_default(),
        vlan_stripped: kernel.vlan_stripped.load(Ordering::Relaxed),
    };
    // Every flow was ended by its worker (also when one failed: a vanished interface); write
    // out what the sinks still buffer, then report the failure.
    let finished = session.finish();
    run?;
    finished?;
    Ok(out)
}

/// One worker's rings on every interface, for each of `n` workers: a ring of `blocks` blocks a
/// socket, one fanout group per interface, the copy filter attached where the run acts.
fn open_rings(
    cfg: &LiveConfig,
    n: usize,
    blocks: usize,
    kernel: &Arc<Kernel>,
) -> io::Result<Vec<RingFeed>> {
    let group_base = (std::process::id() as u16).wrapping_mul(31);
    let mut feeds: Vec<RingFeed> = (0..n)
        .map(|_| RingFeed {
            rings: Vec::new(),
            kernel: kernel.clone(),
            probe: sys::LinkProbe::new().ok(),
            acts: if cfg.act.is_some() {
                vec![PacketAct::default(); MAX_BATCH]
            } else {
                Vec::new()
            },
        })
        .collect();
    for (k, iface) in cfg.ifaces.iter().enumerate() {
        let link = link_type(iface);
        for f in feeds.iter_mut() {
            let ring = RxRing::open(
                iface,
                BLOCK,
                blocks,
                cfg.filter.as_deref(),
                (n > 1).then_some(group_base.wrapping_add(k as u16)),
                // Acting: what the interface receives, where the enforcing program runs.
                cfg.act.is_some(),
            )
            .map_err(|e| {
                let hint = if e.kind() == io::ErrorKind::PermissionDenied {
                    " (capturing needs root or the CAP_NET_RAW capability)"
                } else {
                    ""
                };
                io::Error::new(e.kind(), format!("{iface}: {e}{hint}"))
            })?;
            if let Some(copy) = cfg.act.as_ref().and_then(|a| a.copy_filter.as_ref()) {
                // Packets that came between the bind and now were copied: copies, harmless.
                copy(ring.socket())
                    .map_err(|e| io::Error::new(e.kind(), format!("{iface}: {e}")))?;
            }
            f.rings.push(Ring {
                ring,
                link,
                iface: iface.clone(),
                k,
                down: false,
            });
        }
    }
    Ok(feeds)
}

/// One capture socket's ring, and the state of its link.
struct Ring {
    ring: RxRing,
    link: u32,
    iface: String,
    /// The interface's index in the run's list.
    k: usize,
    /// The socket said its link went down (ENETDOWN), and the link has not been seen up since.
    /// The kernel tells such a socket nothing more if the interface is then deleted (it reports
    /// ENODEV only to sockets still hooked to the device, and going down unhooked this one), so
    /// [`RingFeed::wait`] looks for the interface itself while this holds. (Not cleared by a
    /// block: one filled before the link went down may be handed over after.)
    down: bool,
}

/// The error that ends a worker whose interface `iface` is gone (`err`: what its socket said).
fn gone(iface: &str, err: Option<io::Error>) -> io::Error {
    let why = err.map_or(String::new(), |e| format!(" ({e})"));
    io::Error::new(
        io::ErrorKind::NotFound,
        format!("{iface}: the interface is gone{why}"),
    )
}

/// One worker's rings, one per interface, read block by block in place.
struct RingFeed {
    rings: Vec<Ring>,
    kernel: Arc<Kernel>,
    /// Reads a down link's state, to know when it is back ([`Ring::down`]); without it a ring
    /// stays marked down (its interface looked up at every wait) once it went down.
    probe: Option<sys::LinkProbe>,
    /// Acting ([`CaptureAct`]): a batch's slots for the engine's answers, which are not used
    /// (the packets are copies; final actions reach the enforcer from the engine). Empty when
    /// only classifying.
    acts: Vec<PacketAct>,
}

impl RingFeed {
    fn notice(&self, line: String) {
        if let Ok(mut n) = self.kernel.notices.lock() {
            n.push(line);
        }
    }

    /// Collect the error ring `i` reported. A link that went down is noted for the run's
    /// [`LinkWatch`], which reports it, and waited out; an interface that is gone ends the
    /// worker with an error naming it.
    fn ring_error(&mut self, i: usize) -> io::Result<()> {
        let Some(r) = self.rings.get_mut(i) else {
            return Ok(());
        };
        let err = r.ring.take_error()?;
        if sys::ifindex(&r.iface).is_err() {
            return Err(gone(&r.iface, err));
        }
        match err {
            Some(e) if e.raw_os_error() == Some(libc::ENETDOWN) => {
                r.down = true;
                if let Some(w) = self.kernel.went_down.get(r.k) {
                    w.store(true, Ordering::Relaxed);
                }
            }
            Some(e) => {
                let line = format!("live: {}: {e}", r.iface);
                self.notice(line);
            }
            None => {}
        }
        Ok(())
    }
}

impl Feed for RingFeed {
    fn read(&mut self, each: &mut wirespeed_engine::runtime::feed::Each<'_>) -> io::Result<u64> {
        let mut n = 0u64;
        let acts = &mut self.acts;
        for r in self.rings.iter_mut() {
            // A bounded number of blocks per ring and turn, so no interface starves another.
            for _ in 0..64 {
                let Some(block) = r.ring.next_block() else {
                    break;
                };
                let (k, vlan) = process_block(block.bytes(), r.link, &mut |b| match acts
                    .get_mut(..b.len())
                {
                    Some(a) if !a.is_empty() => {
                        a.fill(PacketAct::default());
                        each(b, a)
                    }
                    _ => each(b, &mut []),
                })?;
                drop(block);
                n += k;
                self.kernel.vlan_stripped.fetch_add(vlan, Ordering::Relaxed);
            }
        }
        Ok(n)
    }

    fn wait(&mut self, timeout: Duration) -> io::Result<()> {
        let fds: Vec<_> = self.rings.iter().map(|r| r.ring.fd()).collect();
        let ms = timeout.as_millis().min(i32::MAX as u128) as i32;
        let bad = sys::poll_readable(&fds, ms)?;
        // A link that went down: its interface may be deleted with no word to this socket.
        // A lookup by name and one of the link's state a wait while it is down (no packets come
        // then anyway); up again, the kernel hooks the socket back and would say ENODEV.
        for r in self.rings.iter_mut().filter(|r| r.down) {
            if sys::ifindex(&r.iface).is_err() {
                return Err(gone(&r.iface, None));
            }
            if let Some(p) = &self.probe {
                r.down = !p.is_up(&r.iface).unwrap_or(false);
            }
        }
        if bad == 0 {
            return Ok(());
        }
        for i in 0..self.rings.len().min(64) {
            if bad & (1 << i) != 0 {
                self.ring_error(i)?;
            }
        }
        // The poll came back at once with an error: never spin on it.
        std::thread::sleep(timeout);
        Ok(())
    }

    fn now_ns(&self) -> u64 {
        sys::realtime_ns()
    }

    /// A block the kernel is filling is handed over at its retire timeout at the latest.
    /// A block the kernel is filling is handed over at its retire timeout at the latest.
    fn settle(&mut self) {
        std::thread::sleep(sys::BLOCK_RETIRE * 3);
    }

    /// The kernel's counters, which each read resets.
    fn publish(&mut self) {
        for r in &self.rings {
            if let Ok(s) = r.ring.stats() {
                let k = &self.kernel;
                k.packets.fetch_add(s.packets, Ordering::Relaxed);
                k.drops.fetch_add(s.drops, Ordering::Relaxed);
                k.freezes.fetch_add(s.freezes, Ordering::Relaxed);
            }
        }
    }
}

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

fn rd32(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_ne_bytes(
        b.get(at..at.checked_add(4)?)?.try_into().ok()?,
    ))
}

fn rd16(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_ne_bytes(
        b.get(at..at.checked_add(2)?)?.try_into().ok()?,
    ))
}

/// The packets of one TPACKET_V3 ring block (`tpacket_block_desc`, then `tpacket3_hdr` records
/// chained by `tp_next_offset`), each with whether the kernel had stripped its VLAN tag. The
/// block comes from the kernel but is parsed with bounds checks all the same: a record that does
/// not fit ends the walk, and the walk visits at most `len / 32` records whatever the header says.
pub fn block_packets(b: &[u8], link: u32) -> impl Iterator<Item = (RawPacket<'_>, bool)> {
    let num = rd32(b, 12).unwrap_or(0) as usize;
    let mut off = rd32(b, 16).unwrap_or(0) as usize;
    let mut left = num.min(b.len() / 32);
    std::iter::from_fn(move || {
        while left > 0 {
            left -= 1;
            let next = rd32(b, off)?;
            let sec = rd32(b, off + 4)?;
            let nsec = rd32(b, off + 8)?;
            let snap = rd32(b, off + 12)?;
            let len = rd32(b, off + 16)?;
            let st = rd32(b, off + 20)?;
            let mac = rd16(b, off + 24)?;
            let here = off;
            if next == 0 {
                left = 0;
            }
            off = off.checked_add(next as usize)?;
            let start = here + usize::from(mac);
            if let Some(data) = b.get(start..start.checked_add(snap as usize)?) {
                let p = RawPacket {
                    ts_ns: u64::from(sec) * 1_000_000_000 + u64::from(nsec),
                    wire_len: len,
                    link,
                    iface: 0,
                    data,
                };
                return Some((p, st & libc::TP_STATUS_VLAN_VALID != 0));
            }
        }
        None
    })
}

/// Hand the packets of one ring block to `each` in batches of at most [`MAX_BATCH`] (a stack
/// array, no allocation per block); returns the packets, and the frames whose VLAN tag the
/// kernel stripped.
fn process_block(
    b: &[u8],
    link: u32,
    each: &mut dyn FnMut(&[RawPacket<'_>]) -> io::Result<()>,
) -> io::Result<(u64, u64)> {
    let mut batch = [RawPacket::EMPTY; MAX_BATCH];
    let mut k = 0;
    let (mut n, mut vlan) = (0u64, 0u64);
    for (p, stripped) in block_packets(b, link) {
        vlan += u64::from(stripped);
        n += 1;
        batch[k] = p;
        k += 1;
        if k == MAX_BATCH {
            each(&batch[..k])?;
            k = 0;
        }
    }
    if k > 0 {
        each(&batch[..k])?;
    }
    Ok((n, vlan))
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// Any block: packets lie inside it, at most one per 32 bytes, never a panic.
        #[test]
        fn any_block_walks_safely(b in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..600),
                                  num in 0u32..50, first in 0u32..200) {
            let mut b = b;
            if b.len() >= 20 {
                b[12..16].copy_from_slice(&num.to_ne_bytes());
                b[16..20].copy_from_slice(&first.to_ne_bytes());
            }
            let start = b.as_ptr() as usize;
            let mut n = 0;
            for (p, _) in block_packets(&b, 1) {
                let s = p.data.as_ptr() as usize;
                proptest::prop_assert!(p.data.is_empty() || (s >= start && s + p.data.len() <= start + b.len()));
                n += 1;
            }
            proptest::prop_assert!(n <= b.len() / 32);
        }
    }

    /// A block laid out by hand as `<linux/if_packet.h>` describes it: two packets.
    #[test]
    fn walks_a_block() {
        let mut b = vec![0u8; 4096];
        let put32 =
            |b: &mut Vec<u8>, at: usize, v: u32| b[at..at + 4].copy_from_slice(&v.to_ne_bytes());
        put32(&mut b, 12, 2); // num_pkts
        put32(&mut b, 16, 48); // offset_to_first_pkt
                               // Packet 1 at 48: next at +128, 1.5 s, 60 bytes captured of 70, data at +68.
        put32(&mut b, 48, 128);
        put32(&mut b, 52, 1);
        put32(&mut b, 56, 500_000_000);
        put32(&mut b, 60, 60);
        put32(&mut b, 64, 70);
        put32(
            &mut b,
            68,
            libc::TP_STATUS_USER | libc::TP_STATUS_VLAN_VALID,
        );
        b[72..74].copy_from_slice(&68u16.to_ne_bytes());
        b[48 + 68] = 0xab;
        // Packet 2 at 176: last (next 0), 2 bytes at +40.
        put32(&mut b, 176, 0);
        put32(&mut b, 176 + 12, 2);
        put32(&mut b, 176 + 16, 2);
        b[176 + 24..176 + 26].copy_from_slice(&40u16.to_ne_bytes());
        let v: Vec<_> = block_packets(&b, 1).collect();
        assert_eq!(v.len(), 2);
        assert_eq!(v[0].0.ts_ns, 1_500_000_000);
        assert_eq!(
            (v[0].0.data.len(), v[0].0.wire_len, v[0].0.data[0]),
            (60, 70, 0xab)
        );
        assert!(v[0].1 && !v[1].1);
        assert_eq!(v[1].0.data.len(), 2);
        // A header that claims more packets than fit, or offsets past the end: no panic, no more.
        put32(&mut b, 12, u32::MAX);
        put32(&mut b, 176, 1 << 30);
        assert_eq!(block_packets(&b, 1).count(), 2);
        assert_eq!(block_packets(&b[..100], 1).count(), 0);
    }
}
