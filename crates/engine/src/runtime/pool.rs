//! A pool of shared-nothing workers over one input: how the work is spread
//! ([`ParallelConfig`]), the pool itself, and what the dispatch did ([`DispatchStats`]). The
//! two ways to feed it are [`super::scan`] (the workers take turns scanning the file) and
//! [`super::reader`] (a reader thread).
//!
//! Seed 000's dispatcher, DPDKStat's decoupled acquisition.
//!
//! By default there is no reader thread: the workers take turns scanning the mapped file. The
//! file is read in chunks (a few worker batches, at most `buffer_mb / 8` bytes); a worker that
//! needs a chunk nobody has read yet takes the scan (one lock, held by one worker at a time),
//! reads that chunk and up to `LOOKAHEAD` more, picks each packet's worker as described below
//! and sorts the packets (references into the mapping, never copies) into per-worker lists with
//! the input clock at each. Every worker then runs its own list of each chunk, in order. Each
//! record is read once, whoever reads it; the worker ahead does the reading, which slows it
//! down until the other catches up, so the reading spreads itself over the workers without a
//! third thread competing for the cores. `SLOTS` chunks are in flight at most: a worker never
//! runs more than that ahead of the slowest, and the pages behind the slowest are released.
//! Between chunks, outside the scan's lock, the workers also map the file's next pages ahead
//! of the scan, so that the worker holding the scan never stops for the kernel while the other
//! waits on it.
//! Earlier every worker scanned the whole file and kept its own packets: on the worst case that
//! read every record and hashed every packet once per worker (BENCHMARKS.md).
//!
//! With [`ParallelConfig::reader_thread`] the calling thread reads the capture in batches,
//! decodes each packet just far enough to know its flow's end-points, and picks a worker with the
//! run's keyed symmetric hash ([`crate::rss::DispatchKey`], drawn per run: nobody can aim
//! packets at one worker), so both directions of a flow meet in one worker.
//! Packets travel by reference into the mapped file (the mapping outlives the scoped worker
//! threads, so nothing is copied), gathered into per-worker batches that cross bounded
//! single-producer/single-consumer channels. Emptied batches come back on a return channel and
//! are reused, so steady-state reading allocates nothing. Each worker owns its [`Worker`]: flow
//! table, fragment table, classifiers, sink.
//!
//! A capture file must not lose packets, so the reader waits when a worker's ring is full (the
//! waits are counted); nothing is dropped between reader and workers.
//!
//! Fragments: later IP fragments carry no ports, so hashing them like their flow needs the first
//! fragment's ports. The reader (or the shared scan) keeps its own [`FragTable`] (the same one
//! the workers use) and hashes every fragment on its datagram's full tuple; a later fragment
//! whose first fragment was not seen hashes on its addresses alone, and its worker counts it as
//! an orphan.

use crate::worker::{EngineConfig, FileOutcome, Worker};
use crate::{AppStats, Counters};
use crossbeam_utils::CachePadded;
use std::io;
use std::path::Path;
use wirespeed_capture::CaptureFile;
use wirespeed_export::RecordSink;
use wirespeed_flow::FragTable;
use wirespeed_wire::DecodeConfig;

/// How the work is spread.
#[derive(Clone, Copy, Debug)]
pub struct ParallelConfig {
    /// Worker threads (1 to 128: the redirection table has 128 entries).
    pub workers: usize,
    /// Pin worker `i` to core `i mod cores`.
    pub pin: bool,
    /// With a reader thread: size of the buffer between the reader and the workers, MiB,
    /// counted as packet slots of [`SLOT_BYTES`] (what a copied full-size frame takes):
    /// `buffer_mb × 2^20 / SLOT_BYTES` packets in flight at most, shared equally among the
    /// workers' rings. Without one: how much of the file (MiB, in `SLOTS` chunks) the scan
    /// may run ahead of the slowest worker, which bounds the file's pages mapped at once.
    pub buffer_mb: usize,
    /// Capture files: a reader thread dispatches the packets to the workers through rings (as
    /// live capture must). Off by default: the workers take turns scanning the file and each
    /// processes its own packets, see [`Pool::run_file`].
    pub reader_thread: bool,
}

impl Default for ParallelConfig {
    fn default() -> Self {
        ParallelConfig {
            workers: std::thread::available_parallelism().map_or(1, |n| n.get().min(128)),
            pin: false,
            buffer_mb: 64,
            reader_thread: false,
        }
    }
}

/// Worker batches the reader gathers before sending them to a worker in one message.
pub const SEND_BATCHES: usize = 4;

/// Bytes one packet in flight is counted for in `buffer_mb`.
pub const SLOT_BYTES: usize = 2048;

/// What the dispatcher did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DispatchStats {
    /// Capture files went through a reader thread (false: the workers shared one scan of the
    /// file and the ring fields stay 0).
    pub reader_thread: bool,
    /// Packets sent to each worker.
    pub per_worker: Vec<u64>,
    /// Batches sent.
    pub batches: u64,
    /// Capacity of each worker's ring, in messages of [`SEND_BATCHES`] worker batches.
    pub ring_batches: usize,
    /// Times the reader found a worker's ring full and waited (capture files never drop).
    pub ring_full_waits: u64,
    /// Without a reader thread: times a worker waited on another (for the chunk it needed, while
    /// the other was scanning it).
    pub ahead_waits: u64,
    /// Without a reader thread: each worker's wall time spent waiting for another, ns (for the
    /// chunk it needed, or for a slot the slowest worker had not yet processed).
    pub wait_ns: Vec<u64>,
    /// Without a reader thread: each worker's wall time spent scanning for all, ns.
    pub scan_ns: Vec<u64>,
    /// Packets dropped between the reader and the workers (always 0 for capture files).
    pub dropped: u64,
    /// Later fragments sent to their flow's worker by the ports of their first fragment.
    pub frags_mapped: u64,
    /// Connections the dispatcher read announced on FTP's control connections and watched
    /// ([`super::watch`]).
    pub watched: u64,
    /// Announced connections not watched: the table was full.
    pub unwatched: u64,
    /// Lookups of a watched connection that waited for another worker.
    pub watch_waits: u64,
    /// Their wall time waiting, ns.
    pub watch_wait_ns: u64,
    /// Packets the reader could not decode (sent to worker 0, which counts the reason).
    pub undecoded: u64,
    /// CPU time the reader thread used, ns (Linux; 0 where unknown).
    pub reader_cpu_ns: u64,
    /// CPU time each worker thread used, ns.
    pub worker_cpu_ns: Vec<u64>,
}

/// CPU time this thread has run, ns, from `/proc/thread-self/schedstat` (0 where unavailable).
/// Read once per thread and file, for the summary: where the cycles went.
pub(crate) fn thread_cpu_ns() -> u64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

/// A reader and `N` workers with one record sink each.
pub struct Pool<S: RecordSink + Send> {
    /// Each worker on cache lines of its own: they sit side by side, and each writes its
    /// counters and input clock for every packet, so the end of one and the start of the next
    /// must not share a line the two cores would pass back and forth.
    pub(crate) workers: Vec<CachePadded<Worker<S>>>,
    /// The dispatcher's fragment table (the reader thread's, or the shared scan's).
    pub(crate) frag: FragTable,
    /// The run's dispatch hash key ([`EngineConfig::dispatch_seed`]).
    pub(crate) key: crate::rss::DispatchKey,
    /// Packets of the run's inputs read so far: the next packet's number ([`crate::Stamp`]).
    pub(crate) ordinal: u64,
    /// The dispatcher's view of the connections FTP announces ([`super::watch`]).
    pub(crate) watch: super::watch::Watch,
    /// Connections announced by one flow for another, shared by the workers.
    pub(crate) expect: std::sync::Arc<crate::expect::Expectations>,
    pub(crate) reader_thread: bool,
    pub(crate) decode: DecodeConfig,
    /// Packets per worker batch (the engine's batch size).
    pub(crate) batch: usize,
    pub(crate) pin: bool,
    /// Bytes of the file the shared scan may run ahead of the slowest worker.
    pub(crate) ahead: usize,
    pub(crate) stats: DispatchStats,
    pub(crate) capture_errors: u64,
}

/// The per-worker engine configuration: the configured bounds are shared, not multiplied by
/// the number of workers. The flow table's capacity gets 1/8 headroom because RSS does not split
/// flows exactly evenly, but never so much that a worker's index (a power of two, at least twice
/// the capacity) doubles: all workers' indexes together then take the memory one table's would.
/// The DPI context pool and the reassembly buffers get the same 1/8 headroom.
pub fn worker_config(cfg: &EngineConfig, workers: usize) -> EngineConfig {
    let mut c = cfg.clone();
    let n = workers.max(1);
    if n > 1 {
        let share = cfg.flow.capacity.div_ceil(n).max(1);
        let index = share.saturating_mul(2).next_power_of_two();
        c.flow.capacity = roomy(cfg.flow.capacity, n).min(index / 2).max(share);
        c.dpi.contexts = roomy(cfg.dpi.contexts, n);
        c.dpi.reasm_buffers = roomy(cfg.dpi.reasm_buffers, n);
    }
    c
}

/// Bytes of memory a run of `workers` workers reserves at start for its flows: each worker's
/// table (slots, index, free list) and the per-flow side tables its statistics families keep.
/// What a `--max-flows` asks for before any of it is allocated, so a size the machine cannot
/// hold is refused with the figure rather than aborting in the allocator.
pub fn reserved_bytes(cfg: &EngineConfig, workers: usize) -> u64 {
    let n = workers.max(1);
    let c = worker_config(cfg, n)
        .flow
        .capacity
        .clamp(1, u32::MAX as usize - 1) as u64;
    let index = c.saturating_mul(2).next_power_of_two().saturating_mul(8);
    let mut per_flow =
        std::mem::size_of::<wirespeed_flow::Flow<crate::classify::FlowExt>>() as u64 + 4;
    if cfg.dist {
        per_flow += crate::observe::flowstats::SLOT_BYTES as u64;
    }
    if cfg.tcp {
        per_flow += crate::observe::tcpstats::SLOT_BYTES as u64;
    }
    if cfg.entropy {
        per_flow += crate::observe::entropy::SLOT_BYTES as u64;
    }
    if cfg.outer_flows {
        per_flow += crate::tunnels::SLOT_BYTES as u64;
    }
    c.saturating_mul(per_flow)
        .saturating_add(index)
        .saturating_mul(n as u64)
}

/// One of `n` workers' share of `total`, with 1/8 headroom (never more than `total`, at least 1
/// when `total` is not 0).
pub(crate) fn roomy(total: usize, n: usize) -> usize {
    (total.saturating_mul(9) / 8)
        .div_ceil(n.max(1))
        .min(total)
        .max(total.min(1))
}

impl<S: RecordSink + Send> Pool<S> {
    /// `par.workers` workers, worker `i` writing to `sink(i)`.
    pub fn new(
        cfg: EngineConfig,
        par: ParallelConfig,
        mut sink: impl FnMut(usize) -> S,
        with_source: bool,
    ) -> Self {
        // A redirection table of 128 entries serves at most 128 workers.
        let n = par.workers.clamp(1, 128);
        let wc = worker_config(&cfg, n);
        let batch = cfg.batch_size.max(1);
        let ring = ((par.buffer_mb << 20) / SLOT_BYTES / (batch * SEND_BATCHES) / n).max(2);
        // One learned state for all: what a flow on one worker teaches labels flows on every
        // worker ([`crate::learn`]).
        let hub = crate::learn::Hub::new(cfg.learn, cfg.classifiers, n);
        // And one table of announced connections (an FTP data connection may land on another
        // worker than its control connection).
        // How far apart in the input the workers can run: the shared scan's chunks in flight,
        // or the reader thread's rings and the batches being filled and run (doubled: margin).
        let scan = super::scan::SLOTS * super::scan::CHUNK_MAX_PACKETS.max(batch);
        let rings = (ring + 2) * SEND_BATCHES * batch * n;
        let skew = 2 * scan.max(rings) as u64;
        let expect = std::sync::Arc::new(crate::expect::Expectations::with_workers(n, skew));
        Pool {
            workers: (0..n)
                .map(|i| {
                    CachePadded::new(
                        Worker::new(wc.clone(), sink(i), with_source)
                            .numbered(i, n)
                            .learning(hub.clone(), i)
                            .expecting(expect.clone(), i),
                    )
                })
                .collect(),
            frag: match cfg.dispatch_seed {
                Some(k) => FragTable::with_key(cfg.frag_capacity, cfg.frag_timeout_ns, k),
                None => FragTable::new(cfg.frag_capacity, cfg.frag_timeout_ns),
            },
            key: {
                let k = match cfg.dispatch_seed {
                    Some(k) => crate::rss::DispatchKey::from_seed(k),
                    None => crate::rss::DispatchKey::random(),
                };
                if cfg.outer_flows {
                    k.addresses_only()
                } else {
                    k
                }
            },
            ordinal: 0,
            watch: super::watch::Watch::new(expect.clone()),
            expect,
            reader_thread: par.reader_thread,
            // `--tunnels both`: a tunnel's outer flow and the flows inside it meet in one
            // worker, dispatched by the outermost headers (as `--tunnels outer` keys flows).
            decode: if cfg.outer_flows {
                DecodeConfig {
                    decode_tunnels: false,
                }
            } else {
                cfg.decode
            },
            batch,
            pin: par.pin,
            ahead: par.buffer_mb.saturating_mul(1 << 20).max(1 << 20),
            stats: DispatchStats {
                per_worker: vec![0; n],
                worker_cpu_ns: vec![0; n],
                wait_ns: vec![0; n],
                scan_ns: vec![0; n],
                ring_batches: ring,
                reader_thread: par.reader_thread,
                ..DispatchStats::default()
            },
            capture_errors: 0,
        }
    }

    /// Number of workers.
    pub fn workers(&self) -> usize {
        self.workers.len()
    }

    /// What the dispatcher did so far.
    pub fn dispatch_stats(&self) -> &DispatchStats {
        &self.stats
    }

    /// Counters of all workers added up (the table's peak is the largest worker's).
    pub fn counters(&self) -> Counters {
        let mut c = Counters::default();
        for w in &self.workers {
            c.add(&w.counters());
        }
        c.capture_errors += self.capture_errors;
        c
    }

    /// Per-application totals of all workers.
    pub fn apps(&self) -> AppStats {
        let mut all = AppStats::default();
        for w in &self.workers {
            for (k, v) in w.apps() {
                let e = all.entry(k).or_insert([0; 3]);
                for (a, b) in e.iter_mut().zip(v) {
                    *a += b;
                }
            }
        }
        all
    }

    /// End every open flow and finish every sink; returns the sinks.
    pub fn finish(self) -> io::Result<Vec<S>> {
        self.workers
            .into_iter()
            .map(|w| w.into_inner().finish())
            .collect()
    }

    /// Feed the capture file at `path` through the workers, then end its flows (each file is its
    /// own capture, as in [`crate::run_file`]). A damaged file processes every packet before the
    /// damage and reports the error in the outcome; a sink error is returned as `Err`.
    ///
    /// Unless [`ParallelConfig::reader_thread`] is set, there is no reader thread: the workers
    /// take turns scanning the (mapped) file chunk by chunk (see the module's documentation),
    /// each chunk read once and its packets sorted by worker with the input clock at each, so
    /// the records are those of one worker. Worker 0 runs on the calling thread (pinned to the
    /// first core with [`ParallelConfig::pin`]), which also reports progress.
    pub fn run_file(
        &mut self,
        path: &Path,
        progress: &mut dyn FnMut(u64, u64),
    ) -> io::Result<FileOutcome> {
        let src = path.to_string_lossy();
        for w in &mut self.workers {
            w.set_source(&src);
        }
        // Each file is its own capture: its times start over.
        self.expect.clear();
        self.watch.clear();
        let outcome = if wirespeed_capture::stream::is_stream(path) {
            // A pipe or standard input: its windows through the scanning workers one after the
            // other, the input's clock carried from one to the next; the flows end once, at the
            // end of the stream.
            let mut clock = 0u64;
            let stop = self.workers.first().and_then(|w| w.config().stop.clone());
            let o = crate::input::stream(path, stop.as_ref(), progress, &mut |file, p| {
                self.run_file_scan(file, &mut |at, _| p(at), &mut clock, false)
            })?;
            for w in &mut self.workers {
                w.advance_clock(clock);
                w.flush()?;
            }
            o
        } else {
            match CaptureFile::open(path).map(|mut file| {
                if let Some(stop) = self.workers.first().and_then(|w| w.config().stop.clone()) {
                    file.stop_when(stop);
                }
                file
            }) {
                Ok(file) if self.reader_thread => self.run_file_reader(&file, progress)?,
                Ok(file) => self.run_file_scan(&file, progress, &mut 0, true)?,
                Err(e) => FileOutcome {
                    packets: 0,
                    error: Some(e),
                },
            }
        };
        self.capture_errors += u64::from(outcome.error.is_some());
        let ord = std::sync::atomic::Ordering::Relaxed;
        self.stats.watched = self.watch.watched;
        self.stats.unwatched = self.expect.unwatched.load(ord);
        self.stats.watch_waits = self.expect.waits.load(ord);
        self.stats.watch_wait_ns = self.expect.wait_ns.load(ord);
        Ok(outcome)
    }
}
