//! The workers take turns scanning the mapped file (the default): see [`super::pool`].

use super::pool::*;
use super::reader::*;
use crate::expect::Expectations;
use crate::spin::wait_for;
use crate::worker::{FileOutcome, Stamp, Worker};
use std::io;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;
use wirespeed_capture::{CaptureFile, PacketReader, RawPacket};
use wirespeed_export::RecordSink;
use wirespeed_flow::FragTable;
use wirespeed_wire::DecodeConfig;

impl<S: RecordSink + Send> Pool<S> {
    /// [`Pool::run_file`] with the workers sharing one scan of the file.
    ///
    /// `clock` is the input's clock before the file (0 for a whole file) and after it; with
    /// `end_flows` false the flows stay open (a window of a stream).
    pub(crate) fn run_file_scan(
        &mut self,
        file: &CaptureFile,
        progress: &mut dyn FnMut(u64, u64),
        clock: &mut u64,
        end_flows: bool,
    ) -> io::Result<FileOutcome> {
        let Pool {
            workers,
            frag,
            key,
            ordinal,
            watch,
            expect,
            decode,
            batch,
            pin,
            ahead,
            stats,
            ..
        } = self;
        let expect: &Expectations = expect;
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
                key: *key,
                ordinal: *ordinal,
                dcfg: *decode,
                frag,
                watch,
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
                    end_ordinal: AtomicU64::new(0),
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
            expect,
            abort: AtomicBool::new(false),
            end_flows,
        };
        // No worker has run a packet of this file yet.
        expect.begin(*ordinal);
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
        *ordinal = sc.ordinal;
        let outcome = FileOutcome {
            packets: sc.packets,
            error: sc.error,
        };
        res?;
        progress(file.len(), file.len());
        Ok(outcome)
    }
}

/// Chunks of a shared scan in flight at once: scanned, not yet processed by every worker. Bounds
/// the file's pages kept mapped (a chunk is at most `ahead / SLOTS` bytes) and how far the
/// fastest worker runs ahead of the slowest.
pub(crate) const SLOTS: usize = 8;

/// Chunks a worker that holds the scan reads past the one it needs, so that the others find
/// theirs ready instead of waiting for the scan.
pub(crate) const LOOKAHEAD: u64 = 2;

/// Worker batches (of every worker together) in one chunk.
pub(crate) const CHUNK_BATCHES: usize = 4;
/// Packets in one chunk at most, whatever the number of workers.
pub(crate) const CHUNK_MAX_PACKETS: usize = 16_384;

/// What every worker of a scan shares: the file, the scan itself (held by one worker at a
/// time), the chunks scanned, and how far each worker has come.
pub(crate) struct Scan<'f, 'a> {
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
    /// The run's announced connections: each worker publishes there how far it has run
    /// ([`Expectations::progress`]).
    expect: &'a Expectations,
    /// A worker failed (sink error, panic): every other stops instead of waiting for it.
    abort: AtomicBool,
    /// End the flows at the end of the file (false: a window of a stream).
    end_flows: bool,
}

/// One chunk of the file's packets, sorted by worker.
pub(crate) struct Chunk<'f> {
    /// The chunk's number + 1 once scanned (0: never filled).
    filled: AtomicU64,
    /// Workers done with the chunk now in the slot.
    done: AtomicUsize,
    /// The input's clock after the chunk's last packet.
    end_clock: AtomicU64,
    /// The number of the packet after the chunk's last.
    end_ordinal: AtomicU64,
    /// The file's offset just past the chunk.
    end_pos: AtomicUsize,
    /// No chunk follows this one (end of file, damage).
    last: AtomicBool,
    /// Worker `i`'s packets, and the input's clock at each.
    lists: Vec<Mutex<List<'f>>>,
}

/// One worker's packets of a chunk, and the input's clock at each and its number.
pub(crate) struct List<'f> {
    pkts: Vec<RawPacket<'f>>,
    stamps: Vec<Stamp>,
}

impl List<'_> {
    fn with_capacity(n: usize) -> Self {
        List {
            pkts: Vec::with_capacity(n),
            stamps: Vec::with_capacity(n),
        }
    }
}

/// The reading side of a shared scan: the one reader of the file, the dispatch (the same
/// fragment table and input clock a reader thread would keep), and the lists being filled.
pub(crate) struct Scanner<'f, 'a> {
    reader: PacketReader<'f>,
    reta: [u8; 128],
    key: crate::rss::DispatchKey,
    /// The next packet's number in the run's input.
    ordinal: u64,
    dcfg: DecodeConfig,
    frag: &'a mut FragTable,
    watch: &'a mut super::watch::Watch,
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
pub(crate) struct Share {
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

/// Lock a mutex, whatever a panicking thread left in it (lists are cleared before reuse, the
/// scanner is abandoned once a worker panicked).
pub(crate) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Sets the scan's abort flag if its thread unwinds (and stops the lookups' waits), so no other
/// worker waits for it forever.
pub(crate) struct AbortOnPanic<'a>(&'a AtomicBool, &'a Expectations);

impl Drop for AbortOnPanic<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.store(true, Ordering::Relaxed);
            self.1.abort();
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
                buf.stamps.clear();
            }
            slot.done.store(0, Ordering::Relaxed);
            slot.end_clock.store(self.now, Ordering::Relaxed);
            slot.end_ordinal.store(self.ordinal, Ordering::Relaxed);
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
            key,
            ordinal,
            dcfg,
            frag,
            watch,
            st,
            now,
            bufs,
            ..
        } = self;
        loop {
            let r = reader.next_batch_visit(job.batch, |p| {
                let (q, in_flow) = pick(&p, key, reta, dcfg, frag, watch, st, *ordinal);
                if in_flow {
                    *now = (*now).max(p.ts_ns);
                }
                let stamp = Stamp {
                    clock: *now,
                    ordinal: *ordinal,
                };
                *ordinal += 1;
                if let Some(b) = bufs.get_mut(q) {
                    b.pkts.push(p);
                    b.stamps.push(stamp);
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
        let _abort = AbortOnPanic(&self.abort, self.expect);
        let _release = crate::learn::AbortOnUnwind(w.learn_hub().clone());
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
                let List { pkts, stamps } = &mut *l;
                for (p, c) in pkts.chunks(bs).zip(stamps.chunks(bs)) {
                    if out.res.is_ok() {
                        // Every packet of this worker's before this batch has been run (a
                        // lookup waiting on it may go on: [`crate::expect`]).
                        if let Some(s) = c.first() {
                            self.expect.progress(me, s.ordinal);
                        }
                        out.batches += 1;
                        out.res = w.process_batch_stamped(p, c);
                    }
                }
                out.own += pkts.len() as u64;
                pkts.clear();
                stamps.clear();
            }
            // Read the slot before handing it back: once every worker is done with it, the
            // scan may fill it again.
            // Published before the clock moves: entering an epoch may wait for the others.
            self.expect
                .progress(me, slot.end_ordinal.load(Ordering::Relaxed));
            w.advance_clock(slot.end_clock.load(Ordering::Relaxed));
            let at = slot.end_pos.load(Ordering::Relaxed);
            let last = slot.last.load(Ordering::Relaxed);
            slot.done.fetch_add(1, Ordering::Release);
            if out.res.is_err() {
                self.abort.store(true, Ordering::Relaxed);
                self.expect.abort();
                w.learn_hub().abort();
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
        // Done with the file: hold back no one's page releases, nor anyone's lookup.
        self.pos[me].store(usize::MAX, Ordering::Relaxed);
        self.expect.progress(me, u64::MAX);
        if out.res.is_ok() && self.end_flows && !self.abort.load(Ordering::Relaxed) {
            out.res = w.flush();
        }
        out
    }
}
