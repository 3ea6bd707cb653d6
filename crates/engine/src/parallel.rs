//! Several shared-nothing workers over one capture file (seed 000's dispatcher, DPDKStat's
//! decoupled acquisition).
//!
//! By default there is no reader thread: every worker scans the whole mapped file, picks each
//! packet's worker as described below, and runs only its own packets (the others are looked at,
//! never copied). A file cannot drop packets, so nothing needs to decouple reading from
//! processing; every worker sees every packet, so each computes the same input clock and the
//! records are those of one worker by construction; and the workers never wait on each other.
//! On two cores and the worst case (see BENCHMARKS.md) reading every record twice costs about
//! what the reader thread's per-packet handoff did (a 48-byte reference and a clock pushed,
//! sent, popped, and read again from another core's cache), but no thread waits on another and
//! no third thread competes for the cores.
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
//! fragment's ports. The reader keeps its own [`FragTable`] (the same one the workers use) and
//! hashes every fragment on its datagram's full tuple; a later fragment whose first fragment was
//! not seen hashes on its addresses alone, and its worker counts it as an orphan. Without a reader
//! thread every worker keeps its own copy of that table, fed every packet, so all reach the same
//! decisions.

use crate::rss;
use crate::worker::{EngineConfig, FileOutcome, Worker};
use crate::{AppStats, Counters};
use crossbeam_channel::{bounded, unbounded, Receiver, Sender, TrySendError};
use std::io;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use wirespeed_capture::{CaptureFile, RawPacket};
use wirespeed_export::RecordSink;
use wirespeed_flow::FragTable;
use wirespeed_wire::{
    decode, ip_proto, DecodeConfig, LinkType, CAPWAP_DATA_PORT, GTPU_PORT, VXLAN_PORT,
};

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
    /// workers' rings. Without one: how far (MiB of the file) a worker may run ahead of the
    /// slowest, which bounds the file's pages mapped at once.
    pub buffer_mb: usize,
    /// Capture files: a reader thread dispatches the packets to the workers through rings (as
    /// live capture must). Off by default: every worker scans the file itself and processes
    /// its own packets, see [`Pool::run_file`].
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
    /// Capture files went through a reader thread (false: every worker scanned the file and
    /// the ring fields stay 0).
    pub reader_thread: bool,
    /// Packets sent to each worker.
    pub per_worker: Vec<u64>,
    /// Batches sent.
    pub batches: u64,
    /// Capacity of each worker's ring, in messages of [`SEND_BATCHES`] worker batches.
    pub ring_batches: usize,
    /// Times the reader found a worker's ring full and waited (capture files never drop).
    pub ring_full_waits: u64,
    /// Without a reader thread: times a worker waited for the slowest to come within
    /// `buffer_mb` of it.
    pub ahead_waits: u64,
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
    workers: Vec<Worker<S>>,
    /// The dispatcher's fragment tables: the reader thread's, or one per worker that scans.
    frags: Vec<FragTable>,
    reader_thread: bool,
    decode: DecodeConfig,
    /// Packets per worker batch (the engine's batch size).
    batch: usize,
    pin: bool,
    /// Bytes of the file a scanning worker may run ahead of the slowest.
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
    let mut c = *cfg;
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
                .map(|i| Worker::new(wc, sink(i), with_source))
                .collect(),
            frags: (0..if par.reader_thread { 1 } else { n })
                .map(|_| FragTable::new(cfg.frag_capacity, cfg.frag_timeout_ns))
                .collect(),
            reader_thread: par.reader_thread,
            decode: cfg.decode,
            batch,
            pin: par.pin,
            ahead: par.buffer_mb.saturating_mul(1 << 20).max(1 << 20),
            stats: DispatchStats {
                per_worker: vec![0; n],
                worker_cpu_ns: vec![0; n],
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
        self.workers.into_iter().map(|w| w.finish()).collect()
    }

    /// Feed the capture file at `path` through the workers, then end its flows (each file is its
    /// own capture, as in [`crate::run_file`]). A damaged file processes every packet before the
    /// damage and reports the error in the outcome; a sink error is returned as `Err`.
    ///
    /// Unless [`ParallelConfig::reader_thread`] is set, there is no reader thread: every worker
    /// scans the whole (mapped) file, picks each packet's worker with the same cheap hash, and
    /// processes only its own. A file cannot lose packets, so nothing needs to be decoupled from
    /// it; every worker computes the same input clock from the same packets, so the records are
    /// those of one worker by construction. Worker 0 runs on the calling thread (pinned to the
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

    /// [`Pool::run_file`] with every worker scanning the file.
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
        let n = self.workers.len();
        let cores = if self.pin {
            core_affinity::get_core_ids().unwrap_or_default()
        } else {
            Vec::new()
        };
        let reta = redirection_table(n);
        let job = Scan {
            file,
            reta: &reta,
            dcfg: &self.decode,
            batch: self.batch,
            ahead: self.ahead,
            pos: &(0..n).map(|_| AtomicUsize::new(0)).collect::<Vec<_>>(),
            clock0: *clock,
            end_flows,
        };
        let (Some((w0, ws)), Some((f0, fs))) =
            (self.workers.split_first_mut(), self.frags.split_first_mut())
        else {
            return Ok(FileOutcome {
                packets: 0,
                error: None,
            });
        };
        let shares = std::thread::scope(|s| {
            let handles: Vec<_> = ws
                .iter_mut()
                .zip(fs.iter_mut())
                .enumerate()
                .map(|(i, (w, fr))| {
                    let core = (!cores.is_empty()).then(|| cores[(i + 1) % cores.len()]);
                    s.spawn(move || {
                        if let Some(c) = core {
                            core_affinity::set_for_current(c);
                        }
                        let cpu0 = thread_cpu_ns();
                        let mut sh = job.share(i + 1, w, fr, &mut |_, _| {});
                        sh.cpu_ns = thread_cpu_ns().saturating_sub(cpu0);
                        sh
                    })
                })
                .collect();
            if let Some(&c) = cores.first() {
                core_affinity::set_for_current(c);
            }
            let cpu0 = thread_cpu_ns();
            let mut sh0 = job.share(0, w0, f0, progress);
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
        let stats = &mut self.stats;
        let mut res = Ok(());
        let mut outcome = FileOutcome {
            packets: 0,
            error: None,
        };
        for (i, sh) in shares.into_iter().enumerate() {
            stats.per_worker[i] += sh.own;
            stats.batches += sh.batches;
            stats.ahead_waits += sh.ahead_waits;
            stats.worker_cpu_ns[i] += sh.cpu_ns;
            if i == 0 {
                // Every worker scanned the same packets: worker 0's view of them is the whole.
                stats.frags_mapped += sh.frags_mapped;
                stats.undecoded += sh.undecoded;
                *clock = sh.clock;
                outcome = FileOutcome {
                    packets: sh.packets,
                    error: sh.error,
                };
            }
            if res.is_ok() {
                res = sh.res;
            }
        }
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
            frags,
            decode: dcfg,
            batch: bs,
            pin,
            stats,
            ..
        } = self;
        let frag = &mut frags[0];
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

/// What every worker of a scan shares: the file, the dispatch, and how far each has read.
#[derive(Clone, Copy)]
struct Scan<'f> {
    file: &'f CaptureFile,
    reta: &'f [u8; 128],
    dcfg: &'f DecodeConfig,
    /// Packets per worker batch.
    batch: usize,
    /// Bytes a worker may run ahead of the slowest.
    ahead: usize,
    /// Each worker's position in the file (worker 0 releases the pages all have passed).
    pos: &'f [AtomicUsize],
    /// The input's clock before this file.
    clock0: u64,
    /// End the flows at the end of the file (false: a window of a stream).
    end_flows: bool,
}

/// What one worker of a scan did.
#[derive(Debug)]
struct Share {
    res: io::Result<()>,
    /// Packets read (every worker reads all).
    packets: u64,
    error: Option<wirespeed_capture::CaptureError>,
    /// Packets of its own.
    own: u64,
    batches: u64,
    ahead_waits: u64,
    frags_mapped: u64,
    undecoded: u64,
    cpu_ns: u64,
    /// The input's clock at the end of the file.
    clock: u64,
}

impl Default for Share {
    fn default() -> Self {
        Share {
            res: Ok(()),
            packets: 0,
            error: None,
            own: 0,
            batches: 0,
            ahead_waits: 0,
            frags_mapped: 0,
            undecoded: 0,
            cpu_ns: 0,
            clock: 0,
        }
    }
}

impl Scan<'_> {
    /// Worker `me`'s pass over the whole file: pick every packet's worker, run its own through
    /// `w` with the input's clock, then end the file's flows.
    fn share<S: RecordSink>(
        &self,
        me: usize,
        w: &mut Worker<S>,
        frag: &mut FragTable,
        progress: &mut dyn FnMut(u64, u64),
    ) -> Share {
        let bs = self.batch;
        let total = self.file.len();
        let mut reader = self.file.reader().shared();
        // This worker's packets and the input's clock at each. Below `bs` between reads, and one
        // read adds at most `bs`: 2 × `bs` slots never overflow. Every packet is written to the
        // next free slot and the count moves on only for this worker's own: no branch on a
        // 50/50 (or 1-in-N) outcome per packet.
        let empty = RawPacket {
            ts_ns: 0,
            wire_len: 0,
            link: 0,
            iface: 0,
            data: &[],
        };
        let mut mine: Vec<RawPacket<'_>> = vec![empty; bs * 2];
        let mut clocks: Vec<u64> = vec![0; bs * 2];
        let mut len = 0usize;
        let mut st = DispatchStats::default();
        let mut out = Share::default();
        let (mut now, mut released) = (self.clock0, 0usize);
        loop {
            // Read one batch's worth of packets (of all workers), keeping this worker's own.
            let r = reader.next_batch_visit(bs, |p| {
                let (q, in_flow) = pick(&p, self.reta, self.dcfg, frag, &mut st);
                now = if in_flow { now.max(p.ts_ns) } else { now };
                if let (Some(m), Some(c)) = (mine.get_mut(len), clocks.get_mut(len)) {
                    *m = p;
                    *c = now;
                    len += usize::from(q == me);
                }
            });
            if let Ok(k) = r {
                out.packets += k as u64;
            }
            if len >= bs {
                out.own += len as u64;
                out.batches += 1;
                out.res = w.process_batch_clocked(&mine[..len], &clocks[..len]);
                w.advance_clock(now);
                len = 0;
                if out.res.is_err() {
                    break;
                }
            }
            let at = reader.position() as usize;
            self.pos[me].store(at, Ordering::Relaxed);
            let slowest = || self.pos.iter().map(|p| p.load(Ordering::Relaxed)).min();
            if me == 0 {
                self.file
                    .release_behind(&mut released, slowest().unwrap_or(0));
            }
            // Bounded memory: the file's pages between the slowest worker and the fastest stay
            // mapped. A worker too far ahead waits (rarely: they share the work evenly).
            let mut waits = 0u32;
            while at > slowest().unwrap_or(0).saturating_add(self.ahead) && waits < 100_000 {
                out.ahead_waits += 1;
                waits += 1;
                std::thread::sleep(std::time::Duration::from_micros(50));
            }
            progress(at as u64, total);
            match r {
                Ok(0) => break,
                Ok(_) => {}
                Err(e) => {
                    out.error = Some(e);
                    break;
                }
            }
        }
        // Done with the file: hold back no one's page releases.
        self.pos[me].store(usize::MAX, Ordering::Relaxed);
        if out.res.is_ok() {
            out.own += len as u64;
            if len > 0 {
                out.batches += 1;
                out.res = w.process_batch_clocked(&mine[..len], &clocks[..len]);
            }
            // The input's final time, before the file's flows end.
            w.advance_clock(now);
            if out.res.is_ok() && self.end_flows {
                out.res = w.flush();
            }
        }
        out.clock = now;
        out.frags_mapped = st.frags_mapped;
        out.undecoded = st.undecoded;
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

/// The symmetric hash of the commonest frames, read straight from the bytes: Ethernet, IPv4
/// (not a fragment) or IPv6 (no extension header), TCP or UDP that is no tunnel. `None` for every
/// other frame, and for any frame the full decoder might reject or key otherwise: those take the
/// full decoder. The reader then spends a few loads per packet, not a whole decode (the profile
/// of the worst case showed the full decode as the largest part of the reader).
#[inline(always)]
pub fn fast_hash(p: &RawPacket<'_>) -> Option<u32> {
    const ETH: usize = 14;
    if p.link != LinkType::ETHERNET.0 {
        return None;
    }
    let f = p.data;
    let ethertype = u16::from_be_bytes([*f.get(12)?, *f.get(13)?]);
    let (src, dst, proto, l4, end) = match ethertype {
        0x0800 => {
            let ip = f.get(ETH..ETH + 20)?;
            let ihl = usize::from(ip[0] & 0x0f) * 4;
            let total = usize::from(u16::from_be_bytes([ip[2], ip[3]]));
            // Version 4, a sane header length, and no fragment (MF clear, offset 0).
            if ip[0] >> 4 != 4 || ihl < 20 || total < ihl || ip[6] & 0x3f != 0 || ip[7] != 0 {
                return None;
            }
            (&ip[12..16], &ip[16..20], ip[9], ETH + ihl, ETH + total)
        }
        0x86dd => {
            let ip = f.get(ETH..ETH + 40)?;
            let plen = usize::from(u16::from_be_bytes([ip[4], ip[5]]));
            if ip[0] >> 4 != 6 || plen == 0 {
                return None;
            }
            (&ip[8..24], &ip[24..40], ip[6], ETH + 40, ETH + 40 + plen)
        }
        _ => return None,
    };
    // A length beyond the frame on the wire is corrupt: the full decoder's path drops it.
    if end > (p.wire_len as usize).max(f.len()) {
        return None;
    }
    // The decoder reads the transport within the IP packet's own length.
    let end = end.min(f.len());
    let h = f.get(l4..end)?;
    let ports = match proto {
        ip_proto::TCP if h.len() >= 20 && h[12] >> 4 >= 5 => (
            u16::from_be_bytes([h[0], h[1]]),
            u16::from_be_bytes([h[2], h[3]]),
        ),
        ip_proto::UDP if h.len() >= 8 => {
            let (s, d) = (
                u16::from_be_bytes([h[0], h[1]]),
                u16::from_be_bytes([h[2], h[3]]),
            );
            if d == VXLAN_PORT
                || s == GTPU_PORT
                || d == GTPU_PORT
                || s == CAPWAP_DATA_PORT
                || d == CAPWAP_DATA_PORT
            {
                return None;
            }
            (s, d)
        }
        _ => return None,
    };
    Some(rss::symmetric(src, dst, Some(ports)))
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
        let dir =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/pcap");
        let Ok(rd) = std::fs::read_dir(&dir) else {
            eprintln!("SKIPPED: {} not found", dir.display());
            return;
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
