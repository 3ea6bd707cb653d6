//! Several shared-nothing workers over one capture file (seed 000's dispatcher, DPDKStat's
//! decoupled acquisition).
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
//! symmetric Toeplitz hash ([`crate::rss`]), so both directions of a flow meet in one worker.
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

use crate::rss;
use crate::worker::{EngineConfig, FileOutcome, Worker};
use crate::{AppStats, Counters};
use crossbeam_channel::{bounded, unbounded, Receiver, Sender, TrySendError};
use crossbeam_utils::CachePadded;
use std::io;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;
use wirespeed_capture::{CaptureFile, PacketReader, RawPacket};
use wirespeed_export::RecordSink;
use wirespeed_flow::FragTable;
use wirespeed_wire::{decode, DecodeConfig, FastAddrs, LinkType};

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
    /// Packets the reader could not decode (sent to worker 0, which counts the reason).
    pub undecoded: u64,
    /// CPU time the reader thread used, ns (Linux; 0 where unknown).
    pub reader_cpu_ns: u64,
    /// CPU time each worker thread used, ns.
    pub worker_cpu_ns: Vec<u64>,
}

/// CPU time this thread has run, ns, from `/proc/thread-self/schedstat` (0 where unavailable).
/// Read once per thread and file, for the summary: where the cycles went.
fn thread_cpu_ns() -> u64 {
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
    workers: Vec<CachePadded<Worker<S>>>,
    /// The dispatcher's fragment table (the reader thread's, or the shared scan's).
    frag: FragTable,
    reader_thread: bool,
    decode: DecodeConfig,
    /// Packets per worker batch (the engine's batch size).
    batch: usize,
    pin: bool,
    /// Bytes of the file the shared scan may run ahead of the slowest worker.
    ahead: usize,
    stats: DispatchStats,
    capture_errors: u64,
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

/// One of `n` workers' share of `total`, with 1/8 headroom (never more than `total`, at least 1
/// when `total` is not 0).
fn roomy(total: usize, n: usize) -> usize {
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
        Pool {
            workers: (0..n)
                .map(|i| CachePadded::new(Worker::new(wc.clone(), sink(i), with_source)))
                .collect(),
            frag: FragTable::new(cfg.frag_capacity, cfg.frag_timeout_ns),
            reader_thread: par.reader_thread,
            decode: cfg.decode,
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
        let outcome = if wirespeed_capture::stream::is_stream(path) {
            // A pipe or standard input: its windows through the scanning workers one after the
            // other, the input's clock carried from one to the next; the flows end once, at the
            // end of the stream.
            let mut clock = 0u64;
            let o = crate::input::stream(path, progress, &mut |file, p| {
                self.run_file_scan(file, &mut |at, _| p(at), &mut clock, false)
            })?;
            for w in &mut self.workers {
                w.advance_clock(clock);
                w.flush()?;
            }
            o
        } else {
            match CaptureFile::open(path) {
                Ok(file) if self.reader_thread => self.run_file_reader(&file, progress)?,
                Ok(file) => self.run_file_scan(&file, progress, &mut 0, true)?,
                Err(e) => FileOutcome {
                    packets: 0,
                    error: Some(e),
                },
            }
        };
        self.capture_errors += u64::from(outcome.error.is_some());
        Ok(outcome)
    }

    /// [`Pool::run_file`] with the workers sharing one scan of the file.
    ///
    /// `clock` is the input's clock before the file (0 for a whole file) and after it; with
    /// `end_flows` false the flows stay open (a window of a stream).
    fn run_file_scan(
        &mut self,
        file: &CaptureFile,
        progress: &mut dyn FnMut(u64, u64),
        clock: &mut u64,
        end_flows: bool,
    ) -> io::Result<FileOutcome> {
        let Pool {
            workers,
            frag,
            decode,
            batch,
            pin,
            ahead,
            stats,
            ..
        } = self;
        let n = workers.len();
        let cores = if *pin {
            core_affinity::get_core_ids().unwrap_or_default()
        } else {
            Vec::new()
        };
        let Some((w0, ws)) = workers.split_first_mut() else {
            return Ok(FileOutcome {
                packets: 0,
                error: None,
            });
        };
        let bs = *batch;
        let chunk_packets = (bs * n * CHUNK_BATCHES).min(CHUNK_MAX_PACKETS).max(bs);
        // A list's usual size (its worker's share of a chunk, and one batch's skew); a list
        // that once grew past it keeps its capacity, so steady state allocates nothing.
        let cap = chunk_packets / n + bs;
        let pos: Vec<AtomicUsize> = (0..n).map(|_| AtomicUsize::new(0)).collect();
        let job = Scan {
            file,
            batch: bs,
            chunk_packets,
            chunk_bytes: (*ahead / SLOTS).max(1 << 16),
            scanner: Mutex::new(Scanner {
                reader: file.reader().shared(),
                reta: redirection_table(n),
                dcfg: *decode,
                frag,
                st: DispatchStats::default(),
                now: *clock,
                packets: 0,
                next: 0,
                ended: false,
                error: None,
                bufs: (0..n).map(|_| List::with_capacity(cap)).collect(),
            }),
            chunks: (0..SLOTS)
                .map(|_| Chunk {
                    filled: AtomicU64::new(0),
                    done: AtomicUsize::new(0),
                    end_clock: AtomicU64::new(0),
                    end_pos: AtomicUsize::new(0),
                    last: AtomicBool::new(false),
                    lists: (0..n)
                        .map(|_| Mutex::new(List::with_capacity(cap)))
                        .collect(),
                })
                .collect(),
            pos: &pos,
            scanned: AtomicUsize::new(0),
            populated: AtomicUsize::new(0),
            abort: AtomicBool::new(false),
            end_flows,
        };
        // The first pages before anyone reads: no worker waits on the first chunk's faults.
        file.populate_ahead(&job.populated, 0);
        let shares = std::thread::scope(|s| {
            let job = &job;
            let handles: Vec<_> = ws
                .iter_mut()
                .enumerate()
                .map(|(i, w)| {
                    let core = (!cores.is_empty()).then(|| cores[(i + 1) % cores.len()]);
                    s.spawn(move || {
                        if let Some(c) = core {
                            core_affinity::set_for_current(c);
                        }
                        let cpu0 = thread_cpu_ns();
                        let mut sh = job.share(i + 1, w, &mut |_, _| {});
                        sh.cpu_ns = thread_cpu_ns().saturating_sub(cpu0);
                        sh
                    })
                })
                .collect();
            if let Some(&c) = cores.first() {
                core_affinity::set_for_current(c);
            }
            let cpu0 = thread_cpu_ns();
            let mut sh0 = job.share(0, w0, progress);
            sh0.cpu_ns = thread_cpu_ns().saturating_sub(cpu0);
            let mut all = vec![sh0];
            for h in handles {
                all.push(h.join().unwrap_or_else(|_| Share {
                    res: Err(io::Error::other("a worker thread panicked")),
                    ..Share::default()
                }));
            }
            all
        });
        let mut res = Ok(());
        for (i, sh) in shares.into_iter().enumerate() {
            stats.per_worker[i] += sh.own;
            stats.batches += sh.batches;
            stats.ahead_waits += sh.waits;
            stats.worker_cpu_ns[i] += sh.cpu_ns;
            stats.wait_ns[i] += sh.wait_ns;
            stats.scan_ns[i] += sh.scan_ns;
            if res.is_ok() {
                res = sh.res;
            }
        }
        let sc = job.scanner.into_inner().unwrap_or_else(|e| e.into_inner());
        stats.frags_mapped += sc.st.frags_mapped;
        stats.undecoded += sc.st.undecoded;
        *clock = sc.now;
        let outcome = FileOutcome {
            packets: sc.packets,
            error: sc.error,
        };
        res?;
        progress(file.len(), file.len());
        Ok(outcome)
    }

    /// [`Pool::run_file`] with a reader thread dispatching to the workers.
    fn run_file_reader(
        &mut self,
        file: &CaptureFile,
        progress: &mut dyn FnMut(u64, u64),
    ) -> io::Result<FileOutcome> {
        let Pool {
            workers,
            frag,
            decode: dcfg,
            batch: bs,
            pin,
            stats,
            ..
        } = self;
        let (wbs, n) = (*bs, workers.len());
        // The reader sends a few worker batches at once: fewer wake-ups of a waiting worker.
        let bs = wbs * SEND_BATCHES;
        let cores = if *pin {
            core_affinity::get_core_ids().unwrap_or_default()
        } else {
            Vec::new()
        };
        let total = file.len();
        let mut reader = file.reader();
        let reader_cpu0 = thread_cpu_ns();
        std::thread::scope(|s| {
            let (back_tx, back_rx) = unbounded::<(Vec<RawPacket<'_>>, Vec<u64>)>();
            let mut rings = Vec::with_capacity(n);
            let mut handles = Vec::with_capacity(n);
            for (i, w) in workers.iter_mut().enumerate() {
                let (tx, rx) = bounded::<Batch<'_>>(stats.ring_batches);
                rings.push(tx);
                let back = back_tx.clone();
                let core = (!cores.is_empty()).then(|| cores[i % cores.len()]);
                handles.push(s.spawn(move || -> (io::Result<()>, u64) {
                    let cpu0 = thread_cpu_ns();
                    if let Some(c) = core {
                        core_affinity::set_for_current(c);
                    }
                    let mut res = Ok(());
                    // Ends when the reader drops its end. After a sink error the worker keeps
                    // draining its ring so the reader never waits on it forever.
                    for Batch {
                        end,
                        mut pkts,
                        mut clocks,
                    } in rx.iter()
                    {
                        // Each packet comes with the input's clock at it: expiry is decided as
                        // one worker reading the whole input would decide it.
                        for (chunk, clk) in pkts.chunks(wbs).zip(clocks.chunks(wbs)) {
                            if res.is_ok() {
                                res = w.process_batch_clocked(chunk, clk);
                            }
                        }
                        w.advance_clock(end);
                        pkts.clear();
                        clocks.clear();
                        let _ = back.send((pkts, clocks));
                    }
                    if res.is_ok() {
                        res = w.flush();
                    }
                    (res, thread_cpu_ns().saturating_sub(cpu0))
                }));
            }
            drop(back_tx);
            let mut inb: Vec<RawPacket<'_>> = Vec::with_capacity(bs);
            let mut out: Vec<(Vec<RawPacket<'_>>, Vec<u64>)> = (0..n)
                .map(|_| (Vec::with_capacity(bs), Vec::with_capacity(bs)))
                .collect();
            let mut packets = 0u64;
            let mut error = None;
            let mut alive = true;
            // The input's clock: the latest time of a packet that counts in a flow.
            let mut now = 0u64;
            let reta = redirection_table(n);
            while alive {
                inb.clear();
                let r = reader.next_batch(&mut inb, bs);
                packets += inb.len() as u64;
                for p in &inb {
                    let (q, in_flow) = pick(p, &reta, dcfg, frag, stats);
                    if in_flow {
                        now = now.max(p.ts_ns);
                    }
                    stats.per_worker[q] += 1;
                    let o = &mut out[q];
                    o.0.push(*p);
                    o.1.push(now);
                    if o.0.len() >= bs && !send(q, now, &mut out, &rings, &back_rx, bs, stats) {
                        alive = false;
                        break;
                    }
                }
                progress(reader.position(), total);
                match r {
                    Ok(0) => break,
                    Ok(_) => {}
                    Err(e) => {
                        error = Some(e);
                        break;
                    }
                }
            }
            // Every worker gets its last packets and the input's final time, before it ends the
            // file's flows.
            for q in 0..n {
                if alive {
                    alive = send(q, now, &mut out, &rings, &back_rx, bs, stats);
                }
            }
            drop(rings);
            let mut res = Ok(());
            for (i, h) in handles.into_iter().enumerate() {
                let (r, cpu) = h
                    .join()
                    .unwrap_or_else(|_| (Err(io::Error::other("a worker thread panicked")), 0));
                stats.worker_cpu_ns[i] += cpu;
                if res.is_ok() {
                    res = r;
                }
            }
            stats.reader_cpu_ns += thread_cpu_ns().saturating_sub(reader_cpu0);
            res?;
            progress(total, total);
            Ok(FileOutcome { packets, error })
        })
    }
}

/// Chunks of a shared scan in flight at once: scanned, not yet processed by every worker. Bounds
/// the file's pages kept mapped (a chunk is at most `ahead / SLOTS` bytes) and how far the
/// fastest worker runs ahead of the slowest.
const SLOTS: usize = 8;

/// Chunks a worker that holds the scan reads past the one it needs, so that the others find
/// theirs ready instead of waiting for the scan.
const LOOKAHEAD: u64 = 2;

/// Worker batches (of every worker together) in one chunk.
const CHUNK_BATCHES: usize = 4;
/// Packets in one chunk at most, whatever the number of workers.
const CHUNK_MAX_PACKETS: usize = 16_384;

/// What every worker of a scan shares: the file, the scan itself (held by one worker at a
/// time), the chunks scanned, and how far each worker has come.
struct Scan<'f, 'a> {
    file: &'f CaptureFile,
    /// Packets per worker batch.
    batch: usize,
    /// Packets and bytes of the file in one chunk at most.
    chunk_packets: usize,
    chunk_bytes: usize,
    /// The scan: whichever worker needs a chunk not yet scanned takes it and reads on.
    scanner: Mutex<Scanner<'f, 'a>>,
    chunks: Vec<Chunk<'f>>,
    /// Each worker's position in the file (worker 0 releases the pages all have passed).
    pos: &'a [AtomicUsize],
    /// How far the scan has read, and how far the file's pages are mapped ahead of it: the
    /// workers map them between chunks, outside the scan's lock (see
    /// [`CaptureFile::populate_ahead`]).
    scanned: AtomicUsize,
    populated: AtomicUsize,
    /// A worker failed (sink error, panic): every other stops instead of waiting for it.
    abort: AtomicBool,
    /// End the flows at the end of the file (false: a window of a stream).
    end_flows: bool,
}

/// One chunk of the file's packets, sorted by worker.
struct Chunk<'f> {
    /// The chunk's number + 1 once scanned (0: never filled).
    filled: AtomicU64,
    /// Workers done with the chunk now in the slot.
    done: AtomicUsize,
    /// The input's clock after the chunk's last packet.
    end_clock: AtomicU64,
    /// The file's offset just past the chunk.
    end_pos: AtomicUsize,
    /// No chunk follows this one (end of file, damage).
    last: AtomicBool,
    /// Worker `i`'s packets, and the input's clock at each.
    lists: Vec<Mutex<List<'f>>>,
}

/// One worker's packets of a chunk and the input's clock at each.
struct List<'f> {
    pkts: Vec<RawPacket<'f>>,
    clocks: Vec<u64>,
}

impl List<'_> {
    fn with_capacity(n: usize) -> Self {
        List {
            pkts: Vec::with_capacity(n),
            clocks: Vec::with_capacity(n),
        }
    }
}

/// The reading side of a shared scan: the one reader of the file, the dispatch (the same
/// fragment table and input clock a reader thread would keep), and the lists being filled.
struct Scanner<'f, 'a> {
    reader: PacketReader<'f>,
    reta: [u8; 128],
    dcfg: DecodeConfig,
    frag: &'a mut FragTable,
    st: DispatchStats,
    /// The input's clock: the latest time of a packet that counts in a flow.
    now: u64,
    packets: u64,
    /// Number of the next chunk to scan.
    next: u64,
    /// The file has ended (or is damaged): no chunk after the last one filled.
    ended: bool,
    error: Option<wirespeed_capture::CaptureError>,
    /// Each worker's list of the chunk being read; swapped with the emptied lists of the slot
    /// it goes to, so steady-state scanning allocates nothing.
    bufs: Vec<List<'f>>,
}

/// What one worker of a scan did.
#[derive(Debug)]
struct Share {
    res: io::Result<()>,
    /// Packets of its own.
    own: u64,
    batches: u64,
    /// Times it waited on another worker (a chunk being scanned, a slot not yet processed).
    waits: u64,
    cpu_ns: u64,
    /// Wall time waiting for another worker, and scanning, ns.
    wait_ns: u64,
    scan_ns: u64,
}

impl Default for Share {
    fn default() -> Self {
        Share {
            res: Ok(()),
            own: 0,
            batches: 0,
            waits: 0,
            cpu_ns: 0,
            wait_ns: 0,
            scan_ns: 0,
        }
    }
}

/// Wait for `ready`, spinning briefly, then yielding; false if the scan was aborted first.
fn wait_for(abort: &AtomicBool, mut ready: impl FnMut() -> bool) -> bool {
    let mut spins = 0u32;
    while !ready() {
        if abort.load(Ordering::Relaxed) {
            return false;
        }
        if spins < 64 {
            spins += 1;
            std::hint::spin_loop();
        } else {
            std::thread::yield_now();
        }
    }
    true
}

/// Lock a mutex, whatever a panicking thread left in it (lists are cleared before reuse, the
/// scanner is abandoned once a worker panicked).
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Sets the scan's abort flag if its thread unwinds, so no other worker waits for it forever.
struct AbortOnPanic<'a>(&'a AtomicBool);

impl Drop for AbortOnPanic<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.store(true, Ordering::Relaxed);
        }
    }
}

impl<'f> Scanner<'f, '_> {
    /// Scan chunks until chunk `need` is filled, and up to `LOOKAHEAD` more while their slots
    /// are free. False if the scan was aborted while waiting for a slot. Adds the time spent
    /// reading chunks to `scan_ns` (two clock reads a chunk, for the summary).
    fn fill_through(&mut self, need: u64, job: &Scan<'f, '_>, scan_ns: &mut u64) -> bool {
        let n = self.bufs.len();
        while !self.ended && self.next <= need + LOOKAHEAD {
            let j = self.next;
            let slot = &job.chunks[j as usize % SLOTS];
            // The slot's previous chunk must have been processed by every worker.
            let free = || {
                slot.filled.load(Ordering::Acquire) == 0 || slot.done.load(Ordering::Acquire) >= n
            };
            if !free() {
                if j > need {
                    // Reading ahead never waits.
                    return true;
                }
                if !wait_for(&job.abort, free) {
                    return false;
                }
            }
            let t = Instant::now();
            self.read_chunk(job);
            *scan_ns += t.elapsed().as_nanos() as u64;
            for (list, buf) in slot.lists.iter().zip(self.bufs.iter_mut()) {
                let mut l = lock(list);
                std::mem::swap(&mut *l, buf);
                buf.pkts.clear();
                buf.clocks.clear();
            }
            slot.done.store(0, Ordering::Relaxed);
            slot.end_clock.store(self.now, Ordering::Relaxed);
            let at = self.reader.position() as usize;
            slot.end_pos.store(at, Ordering::Relaxed);
            job.scanned.store(at, Ordering::Relaxed);
            slot.last.store(self.ended, Ordering::Relaxed);
            slot.filled.store(j + 1, Ordering::Release);
            self.next += 1;
        }
        true
    }

    /// Read the next chunk's packets into the workers' lists.
    fn read_chunk(&mut self, job: &Scan<'f, '_>) {
        let start = self.reader.position();
        let mut count = 0usize;
        let Scanner {
            reader,
            reta,
            dcfg,
            frag,
            st,
            now,
            bufs,
            ..
        } = self;
        loop {
            let r = reader.next_batch_visit(job.batch, |p| {
                let (q, in_flow) = pick(&p, reta, dcfg, frag, st);
                if in_flow {
                    *now = (*now).max(p.ts_ns);
                }
                if let Some(b) = bufs.get_mut(q) {
                    b.pkts.push(p);
                    b.clocks.push(*now);
                }
            });
            match r {
                Ok(0) => {
                    self.ended = true;
                    break;
                }
                Ok(k) => {
                    self.packets += k as u64;
                    count += k;
                }
                Err(e) => {
                    self.error = Some(e);
                    self.ended = true;
                    break;
                }
            }
            let bytes = PacketReader::position(reader).saturating_sub(start) as usize;
            if count >= job.chunk_packets || bytes >= job.chunk_bytes {
                break;
            }
        }
    }
}

impl<'f> Scan<'f, '_> {
    /// Worker `me`'s pass over the file: take each chunk in turn (scanning it first if no
    /// worker has yet), run its own packets through `w` with the input's clock, then end the
    /// file's flows.
    fn share<S: RecordSink>(
        &self,
        me: usize,
        w: &mut Worker<S>,
        progress: &mut dyn FnMut(u64, u64),
    ) -> Share {
        let _abort = AbortOnPanic(&self.abort);
        let bs = self.batch;
        let total = self.file.len();
        let mut out = Share::default();
        let mut released = 0usize;
        let mut k = 0u64;
        loop {
            let slot = &self.chunks[k as usize % SLOTS];
            let ready = || slot.filled.load(Ordering::Acquire) == k + 1;
            if !ready() {
                let mut waited = false;
                // What is not scanning here is waiting for another worker (timed per chunk
                // not found ready, never per packet).
                let t = Instant::now();
                let mut scan_ns = 0u64;
                let ok = wait_for(&self.abort, || {
                    ready()
                        || match self.scanner.try_lock() {
                            Ok(mut s) => !s.fill_through(k, self, &mut scan_ns) || ready(),
                            Err(std::sync::TryLockError::Poisoned(_)) => true,
                            Err(std::sync::TryLockError::WouldBlock) => {
                                waited = true;
                                false
                            }
                        }
                });
                out.waits += u64::from(waited);
                out.scan_ns += scan_ns;
                out.wait_ns += (t.elapsed().as_nanos() as u64).saturating_sub(scan_ns);
                if !ok || !ready() {
                    break;
                }
            }
            {
                let mut l = lock(&slot.lists[me]);
                let List { pkts, clocks } = &mut *l;
                for (p, c) in pkts.chunks(bs).zip(clocks.chunks(bs)) {
                    if out.res.is_ok() {
                        out.batches += 1;
                        out.res = w.process_batch_clocked(p, c);
                    }
                }
                out.own += pkts.len() as u64;
                pkts.clear();
                clocks.clear();
            }
            // Read the slot before handing it back: once every worker is done with it, the
            // scan may fill it again.
            w.advance_clock(slot.end_clock.load(Ordering::Relaxed));
            let at = slot.end_pos.load(Ordering::Relaxed);
            let last = slot.last.load(Ordering::Relaxed);
            slot.done.fetch_add(1, Ordering::Release);
            if out.res.is_err() {
                self.abort.store(true, Ordering::Relaxed);
                break;
            }
            self.pos[me].store(at, Ordering::Relaxed);
            self.file
                .populate_ahead(&self.populated, self.scanned.load(Ordering::Relaxed));
            if me == 0 {
                let slowest = self.pos.iter().map(|p| p.load(Ordering::Relaxed)).min();
                self.file
                    .release_behind(&mut released, slowest.unwrap_or(0));
            }
            progress(at as u64, total);
            if last {
                break;
            }
            k += 1;
        }
        // Done with the file: hold back no one's page releases.
        self.pos[me].store(usize::MAX, Ordering::Relaxed);
        if out.res.is_ok() && self.end_flows && !self.abort.load(Ordering::Relaxed) {
            out.res = w.flush();
        }
        out
    }
}

/// A NIC's 128-entry redirection table filled round-robin over `n` workers: entry `i` is
/// [`rss::queue`]`(i, n)`, looked up instead of dividing per packet.
fn redirection_table(n: usize) -> [u8; 128] {
    let mut t = [0u8; 128];
    for (i, e) in t.iter_mut().enumerate() {
        *e = rss::queue(i as u32, n.min(128)) as u8;
    }
    t
}

/// Send worker `q`'s batch, waiting while its ring is full (counted); false if the worker is gone.
fn send<'a>(
    q: usize,
    end: u64,
    out: &mut [(Vec<RawPacket<'a>>, Vec<u64>)],
    rings: &[Sender<Batch<'a>>],
    back: &Receiver<(Vec<RawPacket<'a>>, Vec<u64>)>,
    bs: usize,
    stats: &mut DispatchStats,
) -> bool {
    let fresh = back
        .try_recv()
        .unwrap_or_else(|_| (Vec::with_capacity(bs), Vec::with_capacity(bs)));
    let (pkts, clocks) = std::mem::replace(&mut out[q], fresh);
    let b = Batch { end, pkts, clocks };
    stats.batches += 1;
    match rings[q].try_send(b) {
        Ok(()) => true,
        Err(TrySendError::Full(b)) => {
            stats.ring_full_waits += 1;
            rings[q].send(b).is_ok()
        }
        Err(TrySendError::Disconnected(_)) => false,
    }
}

/// The symmetric hash of the commonest frames, read straight from the bytes
/// ([`wirespeed_wire::fast_flow`]: Ethernet, IPv4 that is no fragment or IPv6 without extension
/// headers, TCP or UDP that is no tunnel). `None` for every other frame, and for any frame the
/// full decoder might reject or key otherwise: those take the full decoder. The reader then
/// spends a few loads per packet, not a whole decode (the profile of the worst case showed the
/// full decode as the largest part of the reader).
#[inline(always)]
pub fn fast_hash(p: &RawPacket<'_>) -> Option<u32> {
    let f = wirespeed_wire::fast_flow(LinkType(p.link), p.data, p.wire_len as usize)?;
    // The addresses folded as whole words (~110 instructions a packet before, most of a
    // 2-worker run's dispatch cost).
    let addrs = match f.addrs {
        FastAddrs::V4(s, d) => rss::fold_v4(*s, *d),
        FastAddrs::V6(s, d) => rss::fold_v6(*s, *d),
    };
    Some(rss::from_fold(addrs ^ f.sport ^ f.dport))
}

/// Packets for one worker, and the input's clock when they were sent.
struct Batch<'a> {
    /// The input's time when the message was sent (its last packet's, or the input's end).
    end: u64,
    pkts: Vec<RawPacket<'a>>,
    /// The input's clock at each packet of `pkts` (the latest time of a packet counted in a
    /// flow so far, across all workers).
    clocks: Vec<u64>,
}

/// The worker for `p` (its innermost flow's end-points under the symmetric hash), and whether the
/// packet will count in a flow (and so moves the clock, as in a single worker). Packets that do
/// not decode go to worker 0, which counts why.
#[inline(always)]
fn pick(
    p: &RawPacket<'_>,
    reta: &[u8; 128],
    cfg: &DecodeConfig,
    frag: &mut FragTable,
    stats: &mut DispatchStats,
) -> (usize, bool) {
    match fast_hash(p) {
        Some(h) => (usize::from(reta[h as usize & 127]), true),
        None => pick_decoded(p, reta, cfg, frag, stats),
    }
}

/// [`pick`] for the frames the fast path leaves: the full decoder, and fragments mapped to their
/// first fragment's ports.
#[inline(never)]
fn pick_decoded(
    p: &RawPacket<'_>,
    reta: &[u8; 128],
    cfg: &DecodeConfig,
    frag: &mut FragTable,
    stats: &mut DispatchStats,
) -> (usize, bool) {
    let d = match decode(LinkType(p.link), p.data, cfg) {
        Ok(d) if !d.beyond_frame(p.wire_len as usize, p.data.len()) => d,
        _ => {
            stats.undecoded += 1;
            return (0, false);
        }
    };
    // An orphan fragment (no first fragment seen) will not count in a flow in its worker
    // either: it keeps its own (zero) ports and does not move the clock.
    let (ports, in_flow) = match frag.ports(&d, p.ts_ns) {
        Some(pp) => {
            if d.frag.is_some_and(|f| f.offset != 0) {
                stats.frags_mapped += 1;
            }
            (pp, true)
        }
        None => ((d.src_port, d.dst_port), false),
    };
    let alen = if d.ip_version == 4 { 4 } else { 16 };
    let h = rss::symmetric(&d.src[..alen], &d.dst[..alen], Some(ports));
    (usize::from(reta[h as usize & 127]), in_flow)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

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
        let Some(h) = fast_hash(&p) else {
            return Ok(false);
        };
        let d = decode(LinkType(link), data, &DecodeConfig::default())
            .map_err(|e| format!("fast path took a frame the decoder drops: {e:?}"))?;
        if d.frag.is_some() {
            return Err("fast path took a fragment".into());
        }
        let alen = if d.ip_version == 4 { 4 } else { 16 };
        let full = rss::symmetric(
            &d.src[..alen],
            &d.dst[..alen],
            Some((d.src_port, d.dst_port)),
        );
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
