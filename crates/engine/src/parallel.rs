//! Several shared-nothing workers fed by one reader (seed 000's dispatcher, DPDKStat's
//! decoupled acquisition).
//!
//! The calling thread reads the capture in batches, decodes each packet just far enough to know
//! its flow's end-points, and picks a worker with the symmetric Toeplitz hash ([`crate::rss`]), so
//! both directions of a flow meet in one worker. Packets travel by reference into the mapped file
//! (the mapping outlives the scoped worker threads, so nothing is copied), gathered into
//! per-worker batches that cross bounded single-producer/single-consumer channels. Emptied
//! batches come back on a return channel and are reused, so steady-state reading allocates
//! nothing. Each worker owns its [`Worker`]: flow table, fragment table, classifiers, sink.
//!
//! A capture file must not lose packets, so the reader waits when a worker's ring is full (the
//! waits are counted); nothing is dropped between reader and workers.
//!
//! Fragments: later IP fragments carry no ports, so hashing them like their flow needs the first
//! fragment's ports. The reader keeps its own [`FragTable`] (the same one the workers use) and
//! hashes every fragment on its datagram's full tuple; a later fragment whose first fragment was
//! not seen hashes on its addresses alone, and its worker counts it as an orphan.

use crate::rss;
use crate::worker::{EngineConfig, FileOutcome, Worker};
use crate::{AppStats, Counters};
use crossbeam_channel::{bounded, unbounded, Receiver, Sender, TrySendError};
use std::io;
use std::path::Path;
use wirespeed_capture::{CaptureFile, RawPacket};
use wirespeed_export::RecordSink;
use wirespeed_flow::{FragKey, FragTable};
use wirespeed_wire::{decode, DecodeConfig, LinkType};

/// How the work is spread.
#[derive(Clone, Copy, Debug)]
pub struct ParallelConfig {
    /// Worker threads (at least 1).
    pub workers: usize,
    /// Pin worker `i` to core `i mod cores`.
    pub pin: bool,
    /// Size of the buffer between the reader and the workers, MiB, counted as packet slots of
    /// [`SLOT_BYTES`] (what a copied full-size frame takes): `buffer_mb × 2^20 / SLOT_BYTES`
    /// packets in flight at most, shared equally among the workers' rings.
    pub buffer_mb: usize,
}

impl Default for ParallelConfig {
    fn default() -> Self {
        ParallelConfig {
            workers: std::thread::available_parallelism().map_or(1, |n| n.get()),
            pin: false,
            buffer_mb: 64,
        }
    }
}

/// Bytes one packet in flight is counted for in `buffer_mb`.
pub const SLOT_BYTES: usize = 2048;

/// What the dispatcher did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DispatchStats {
    /// Packets sent to each worker.
    pub per_worker: Vec<u64>,
    /// Batches sent.
    pub batches: u64,
    /// Capacity of each worker's ring, in batches.
    pub ring_batches: usize,
    /// Times the reader found a worker's ring full and waited (capture files never drop).
    pub ring_full_waits: u64,
    /// Packets dropped between the reader and the workers (always 0 for capture files).
    pub dropped: u64,
    /// Later fragments sent to their flow's worker by the ports of their first fragment.
    pub frags_mapped: u64,
    /// Packets the reader could not decode (sent to worker 0, which counts the reason).
    pub undecoded: u64,
}

/// A reader and `N` workers with one record sink each.
pub struct Pool<S: RecordSink + Send> {
    workers: Vec<Worker<S>>,
    frag: FragTable,
    decode: DecodeConfig,
    batch: usize,
    pin: bool,
    stats: DispatchStats,
    capture_errors: u64,
}

/// The per-worker engine configuration: the flow table's capacity is shared, with 1/8 headroom
/// because RSS does not split flows exactly evenly.
pub fn worker_config(cfg: &EngineConfig, workers: usize) -> EngineConfig {
    let mut c = *cfg;
    let n = workers.max(1);
    if n > 1 {
        c.flow.capacity = (cfg.flow.capacity.saturating_mul(9) / 8).div_ceil(n).max(1);
    }
    c
}

impl<S: RecordSink + Send> Pool<S> {
    /// `par.workers` workers, worker `i` writing to `sink(i)`.
    pub fn new(
        cfg: EngineConfig,
        par: ParallelConfig,
        mut sink: impl FnMut(usize) -> S,
        with_source: bool,
    ) -> Self {
        let n = par.workers.max(1);
        let wc = worker_config(&cfg, n);
        let batch = cfg.batch_size.max(1);
        let ring = ((par.buffer_mb << 20) / SLOT_BYTES / batch / n).max(2);
        Pool {
            workers: (0..n)
                .map(|i| Worker::new(wc, sink(i), with_source))
                .collect(),
            frag: FragTable::new(cfg.frag_capacity, cfg.frag_timeout_ns),
            decode: cfg.decode,
            batch,
            pin: par.pin,
            stats: DispatchStats {
                per_worker: vec![0; n],
                ring_batches: ring,
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
    pub fn run_file(
        &mut self,
        path: &Path,
        progress: &mut dyn FnMut(u64, u64),
    ) -> io::Result<FileOutcome> {
        let file = match CaptureFile::open(path) {
            Ok(f) => f,
            Err(e) => {
                self.capture_errors += 1;
                return Ok(FileOutcome {
                    packets: 0,
                    error: Some(e),
                });
            }
        };
        let src = path.to_string_lossy();
        for w in &mut self.workers {
            w.set_source(&src);
        }
        let Pool {
            workers,
            frag,
            decode: dcfg,
            batch: bs,
            pin,
            stats,
            capture_errors,
        } = self;
        let (bs, n) = (*bs, workers.len());
        let cores = if *pin {
            core_affinity::get_core_ids().unwrap_or_default()
        } else {
            Vec::new()
        };
        let total = file.len();
        let mut reader = file.reader();
        std::thread::scope(|s| {
            let (back_tx, back_rx) = unbounded::<Vec<RawPacket<'_>>>();
            let mut rings = Vec::with_capacity(n);
            let mut handles = Vec::with_capacity(n);
            for (i, w) in workers.iter_mut().enumerate() {
                let (tx, rx) = bounded::<Batch<'_>>(stats.ring_batches);
                rings.push(tx);
                let back = back_tx.clone();
                let core = (!cores.is_empty()).then(|| cores[i % cores.len()]);
                handles.push(s.spawn(move || -> io::Result<()> {
                    if let Some(c) = core {
                        core_affinity::set_for_current(c);
                    }
                    let mut res = Ok(());
                    // Ends when the reader drops its end. After a sink error the worker keeps
                    // draining its ring so the reader never waits on it forever.
                    for Batch { now, mut pkts } in rx.iter() {
                        w.advance_clock(now);
                        if res.is_ok() && !pkts.is_empty() {
                            res = w.process_batch(&pkts);
                        }
                        pkts.clear();
                        let _ = back.send(pkts);
                    }
                    res?;
                    w.flush()
                }));
            }
            drop(back_tx);
            let mut inb: Vec<RawPacket<'_>> = Vec::with_capacity(bs);
            let mut out: Vec<Vec<RawPacket<'_>>> = (0..n).map(|_| Vec::with_capacity(bs)).collect();
            let mut packets = 0u64;
            let mut error = None;
            let mut alive = true;
            // The input's clock: the latest time of a packet that counts in a flow.
            let mut now = 0u64;
            while alive {
                inb.clear();
                let r = reader.next_batch(&mut inb, bs);
                packets += inb.len() as u64;
                for p in &inb {
                    let (q, in_flow) = pick(p, n, dcfg, frag, stats);
                    if in_flow {
                        now = now.max(p.ts_ns);
                    }
                    stats.per_worker[q] += 1;
                    out[q].push(*p);
                    if out[q].len() >= bs && !send(q, now, &mut out, &rings, &back_rx, bs, stats) {
                        alive = false;
                        break;
                    }
                }
                progress(reader.position(), total);
                match r {
                    Ok(0) => break,
                    Ok(_) => {}
                    Err(e) => {
                        *capture_errors += 1;
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
            for h in handles {
                let r = h
                    .join()
                    .unwrap_or_else(|_| Err(io::Error::other("a worker thread panicked")));
                if res.is_ok() {
                    res = r;
                }
            }
            res?;
            progress(total, total);
            Ok(FileOutcome { packets, error })
        })
    }
}

/// Send worker `q`'s batch, waiting while its ring is full (counted); false if the worker is gone.
fn send<'a>(
    q: usize,
    now: u64,
    out: &mut [Vec<RawPacket<'a>>],
    rings: &[Sender<Batch<'a>>],
    back: &Receiver<Vec<RawPacket<'a>>>,
    bs: usize,
    stats: &mut DispatchStats,
) -> bool {
    let fresh = back.try_recv().unwrap_or_else(|_| Vec::with_capacity(bs));
    let b = Batch {
        now,
        pkts: std::mem::replace(&mut out[q], fresh),
    };
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

/// Packets for one worker, and the input's clock when they were sent.
struct Batch<'a> {
    now: u64,
    pkts: Vec<RawPacket<'a>>,
}

/// The worker for `p` (its innermost flow's end-points under the symmetric hash), and whether the
/// packet will count in a flow (and so moves the clock, as in a single worker). Packets that do
/// not decode go to worker 0, which counts why.
#[inline]
fn pick(
    p: &RawPacket<'_>,
    n: usize,
    cfg: &DecodeConfig,
    frag: &mut FragTable,
    stats: &mut DispatchStats,
) -> (usize, bool) {
    let d = match decode(LinkType(p.link), p.data, cfg) {
        Ok(d) => d,
        Err(_) => {
            stats.undecoded += 1;
            return (0, false);
        }
    };
    let mut in_flow = true;
    let mut ports = (d.src_port, d.dst_port);
    if let Some(fr) = d.frag {
        let fk = FragKey {
            src: d.src,
            dst: d.dst,
            id: fr.id,
            proto: d.proto,
            vlan: d.vlan,
        };
        if fr.offset == 0 {
            frag.insert(fk, ports, p.ts_ns);
        } else if let Some(pp) = frag.lookup(&fk, p.ts_ns) {
            ports = pp;
            stats.frags_mapped += 1;
        } else {
            // An orphan: its worker will not count it in a flow either.
            in_flow = false;
        }
    }
    let alen = if d.ip_version == 4 { 4 } else { 16 };
    let h = rss::symmetric(&d.src[..alen], &d.dst[..alen], Some(ports));
    (rss::queue(h, n), in_flow)
}
