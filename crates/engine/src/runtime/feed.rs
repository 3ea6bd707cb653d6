//! Sources that spread flows over the workers by themselves (live rings with kernel fanout;
//! next, NFQUEUE ranges for inline action): each worker reads its own [`Feed`], with no
//! dispatcher between them. [`crate::Session::run_feeds`] runs one worker thread per feed with
//! the one loop every such source shares: read what is ready, wait without
//! spinning when nothing is, let idle flows expire by the wall clock on a quiet link, and at
//! the stop process what the feed still holds before every flow is ended.

use crate::worker::Worker;
pub use crate::worker::{WorkerSnapshot, OPEN_SCAN_MAX};
use std::io;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};
use wirespeed_act::PacketAct;
use wirespeed_capture::RawPacket;
use wirespeed_export::RecordSink;

/// Largest batch a feed hands to its worker at once.
pub const MAX_BATCH: usize = 256;

/// What a [`Feed`] hands each batch to: the packets, and what each gets (empty for sources
/// that do not act on packets).
pub type Each<'e> = dyn FnMut(&[RawPacket<'_>], &mut [PacketAct]) -> io::Result<()> + 'e;

/// One worker's source of packets.
pub trait Feed: Send {
    /// Hand the packets ready now to `each`, in batches of at most [`MAX_BATCH`] (borrowed from
    /// the source's own memory: a ring block is given back after its packets are processed);
    /// returns how many packets, 0 when none were ready. A bounded amount per call, so the
    /// worker comes back to its other duties.
    ///
    /// A source that acts on packets (NFQUEUE) hands with each batch a slice of as many
    /// [`PacketAct`]s, all `PacketAct::default()` (accept), which the worker fills in
    /// ([`Worker::process_batch_acting`]); the others hand an empty slice.
    fn read(&mut self, each: &mut Each<'_>) -> io::Result<u64>;

    /// Wait up to `timeout` for packets, without spinning.
    fn wait(&mut self, timeout: Duration) -> io::Result<()>;

    /// The time now on the clock that stamps this source's packets, ns since the epoch (a quiet
    /// link's flows expire by it).
    fn now_ns(&self) -> u64;

    /// Publish the source's own counters (the kernel's, say); called about twice a second and
    /// once at the end.
    fn publish(&mut self) {}

    /// Return once the packets the source has already accepted are readable (a ring block is
    /// handed over when full or when its retire timeout runs out): called once at the stop,
    /// after the worker has read what was ready; then it reads what came, so packets received
    /// just before the stop are not lost. The default: nothing is ever pending.
    fn settle(&mut self) {}
}

impl<F: Feed + ?Sized> Feed for Box<F> {
    fn read(&mut self, each: &mut Each<'_>) -> io::Result<u64> {
        (**self).read(each)
    }

    fn wait(&mut self, timeout: Duration) -> io::Result<()> {
        (**self).wait(timeout)
    }

    fn now_ns(&self) -> u64 {
        (**self).now_ns()
    }

    fn publish(&mut self) {
        (**self).publish()
    }

    fn settle(&mut self) {
        (**self).settle()
    }
}

/// Counters the workers of a feed run publish while running (the status line reads them).
#[derive(Debug, Default)]
pub struct FeedCounters {
    /// Packets read.
    pub packets: AtomicU64,
    /// Captured bytes read.
    pub bytes: AtomicU64,
    /// Flow records written.
    pub records: AtomicU64,
}

/// What the workers of a feed run publish for readers on other threads (a metrics endpoint):
/// each worker's counters, per-label totals and open flows, copied into a slot of its own when
/// it publishes its other counters (about twice a second, and once at its end), never on the
/// packet path. A worker takes its slot with `try_lock`: a reader holding it costs that worker
/// one publication, never a wait. Given to [`crate::Session::publish_to`] before the run.
#[derive(Debug, Default)]
pub struct Published {
    slots: OnceLock<Box<[Mutex<WorkerSnapshot>]>>,
    count_open: std::sync::atomic::AtomicBool,
}

impl Published {
    /// Make one slot per worker (the first run's count; later calls change nothing), each
    /// asking for the open flows if [`Published::count_open`] was called before.
    pub(crate) fn init(&self, workers: usize) {
        let want_open = self.counts_open();
        self.slots.get_or_init(|| {
            (0..workers)
                .map(|_| {
                    Mutex::new(WorkerSnapshot {
                        want_open,
                        ..Default::default()
                    })
                })
                .collect()
        });
    }

    /// Worker `i`'s slot.
    pub(crate) fn slot(&self, i: usize) -> Option<&Mutex<WorkerSnapshot>> {
        self.slots.get()?.get(i)
    }

    /// Ask the workers to count their open flows by label too when they publish (a live page's
    /// throughput now); each walks its flows then, if it holds at most [`OPEN_SCAN_MAX`].
    pub fn count_open(&self) {
        self.count_open.store(true, Ordering::Relaxed);
    }

    /// Whether the workers count their open flows ([`Published::count_open`]).
    pub(crate) fn counts_open(&self) -> bool {
        self.count_open.load(Ordering::Relaxed)
    }

    /// Every worker's last snapshot added up (all zero before the run starts).
    pub fn total(&self) -> WorkerSnapshot {
        let mut t = WorkerSnapshot::default();
        let mut open = self.slots.get().is_some_and(|s| !s.is_empty());
        for s in self.slots.get().into_iter().flatten() {
            let s = match s.lock() {
                Ok(s) => s,
                Err(p) => p.into_inner(),
            };
            open &= s.open_counted;
            t.add(&s);
        }
        t.open_counted = open;
        t
    }
}

/// Wait this long for packets before looking at the stop flag and the clock again.
const WAIT: Duration = Duration::from_millis(100);
/// A quiet link's flows expire this often.
const IDLE_TICK: Duration = Duration::from_secs(1);
/// Counters are published this often.
const PUBLISH_EVERY: Duration = Duration::from_millis(500);
/// Records a worker holds in its writer's buffer are handed to the output at least this often,
/// so a process killed (`kill -9`, a crash) loses at most this much of what was already ended
/// or reported (interims included), not a buffer's worth on a quiet link.
const FLUSH_EVERY: Duration = Duration::from_secs(1);

/// One worker over one feed until `stop`; then what the feed holds is processed and every flow
/// ended. A sink error stops this worker (the caller stops the others).
pub(crate) fn run_worker<S: RecordSink, F: Feed>(
    w: &mut Worker<S>,
    feed: &mut F,
    stop: &AtomicBool,
    counters: &FeedCounters,
    slot: Option<&Mutex<WorkerSnapshot>>,
) -> io::Result<()> {
    let mut idle_since = Instant::now();
    let mut last_publish = Instant::now();
    let mut last_flush = (Instant::now(), 0u64);
    let mut published = 0u64;
    let mut run = || -> io::Result<()> {
        while !stop.load(Ordering::Relaxed) {
            if read(w, feed, counters)? > 0 {
                idle_since = Instant::now();
            } else {
                feed.wait(WAIT)?;
                if idle_since.elapsed() >= IDLE_TICK {
                    // A quiet link: idle flows expire by the clock that stamps its packets.
                    idle_since = Instant::now();
                    w.advance_clock(feed.now_ns());
                    w.process_batch(&[])?;
                }
            }
            if last_publish.elapsed() >= PUBLISH_EVERY {
                last_publish = Instant::now();
                publish(w, feed, counters, &mut published, slot, false);
            }
            if last_flush.0.elapsed() >= FLUSH_EVERY {
                let written = w.records_written() + w.events_written();
                if written != last_flush.1 {
                    w.flush_output()?;
                }
                last_flush = (Instant::now(), written);
            }
        }
        // Stopping: what the feed already holds is processed (and what it accepted just before,
        // once that becomes readable).
        while read(w, feed, counters)? > 0 {}
        feed.settle();
        while read(w, feed, counters)? > 0 {}
        Ok(())
    };
    // Every flow is ended and written, also when the feed failed (its interface vanished): the
    // records of the flows seen so far are not lost with it.
    let ran = run();
    let flushed = w.flush();
    w.fold_act();
    publish(w, feed, counters, &mut published, slot, true);
    ran.and(flushed)
}

/// One read of the feed into the worker; the packets read.
#[inline]
fn read<S: RecordSink, F: Feed>(
    w: &mut Worker<S>,
    feed: &mut F,
    counters: &FeedCounters,
) -> io::Result<u64> {
    let mut bytes = 0u64;
    let bs = w.config().batch_size.max(1);
    let n = feed.read(&mut |b, acts| {
        bytes += b.iter().map(|p| p.data.len() as u64).sum::<u64>();
        // The engine's batch size (the sweep's pace, the pipeline's stage buffers).
        if acts.len() == b.len() && !b.is_empty() {
            for (chunk, acts) in b.chunks(bs).zip(acts.chunks_mut(bs)) {
                w.process_batch_acting(chunk, acts)?;
            }
        } else {
            for chunk in b.chunks(bs) {
                w.process_batch(chunk)?;
            }
        }
        Ok(())
    })?;
    counters.packets.fetch_add(n, Ordering::Relaxed);
    counters.bytes.fetch_add(bytes, Ordering::Relaxed);
    Ok(n)
}

/// Publish what changed since the last call: the worker's records (cumulative, hence `last`)
/// and the feed's own counters; and, for readers on other threads (`slot`), a snapshot of the
/// worker's counters and per-label totals, with its per-rule action counters folded into the
/// policy's totals. Only the `last` publication (the worker's end) waits for a reader to let
/// go of the slot.
fn publish<S: RecordSink, F: Feed>(
    w: &mut Worker<S>,
    feed: &mut F,
    counters: &FeedCounters,
    last: &mut u64,
    slot: Option<&Mutex<WorkerSnapshot>>,
    wait: bool,
) {
    let r = w.counters().records;
    counters
        .records
        .fetch_add(r.saturating_sub(*last), Ordering::Relaxed);
    *last = r;
    feed.publish();
    if let Some(slot) = slot {
        w.fold_act();
        // A reader copying the slot now: this publication is skipped, the next one is not.
        let s = if wait {
            Some(slot.lock().unwrap_or_else(|p| p.into_inner()))
        } else {
            slot.try_lock().ok()
        };
        if let Some(mut s) = s {
            w.snapshot_into(&mut s);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen::{FrameBuilder, L4};
    use crate::worker::EngineConfig;
    use wirespeed_export::NullSink;

    /// A feed holding packets it accepted but cannot hand over yet (a ring block the kernel
    /// hands over at its retire timeout): they become readable when the worker lets it settle,
    /// if `settles`; a feed that does not settle models the stop without the wait. No clock:
    /// the test is the same on any machine under any load.
    struct Late {
        frames: Vec<Vec<u8>>,
        ready: bool,
        settles: bool,
        given: bool,
    }

    impl Feed for Late {
        fn read(&mut self, each: &mut Each<'_>) -> io::Result<u64> {
            if self.given || !self.ready {
                return Ok(0);
            }
            self.given = true;
            let b: Vec<RawPacket<'_>> = self
                .frames
                .iter()
                .map(|f| RawPacket::ethernet(1_700_000_000_000_000_000, f))
                .collect();
            each(&b, &mut [])?;
            Ok(b.len() as u64)
        }
        fn wait(&mut self, _timeout: Duration) -> io::Result<()> {
            Ok(())
        }
        fn now_ns(&self) -> u64 {
            0
        }
        fn settle(&mut self) {
            self.ready |= self.settles;
        }
    }

    /// Three one-packet UDP flows.
    fn frames() -> Vec<Vec<u8>> {
        let fb = FrameBuilder { vlan: 0 };
        (0..3u16)
            .map(|i| {
                let l4 = L4::Udp {
                    sport: 40000 + i,
                    dport: 53,
                    payload: b"x",
                };
                fb.ipv4([192, 0, 2, 1], [198, 51, 100, 1], &l4)
            })
            .collect()
    }

    fn run(settles: bool) -> (u64, u64) {
        let mut feed = Late {
            frames: frames(),
            ready: false,
            settles,
            given: false,
        };
        let mut w = Worker::new(EngineConfig::default(), NullSink::default(), false);
        // Stopped before the packets are readable.
        let stop = AtomicBool::new(true);
        let c = FeedCounters::default();
        run_worker(&mut w, &mut feed, &stop, &c, None).unwrap();
        (c.packets.load(Ordering::Relaxed), w.counters().records)
    }

    /// At the stop, packets the source accepted but had not handed over yet are waited for
    /// (`settle`) and processed, and their flows written; without the wait they would be lost.
    #[test]
    fn packets_still_settling_at_the_stop_are_processed() {
        assert_eq!(run(true), (3, 3));
        assert_eq!(run(false), (0, 0));
    }

    /// With a slot to publish to, the worker's last publication (at its end, every flow ended)
    /// holds its counters and per-label totals, and no open flow.
    #[test]
    fn the_last_publication_holds_the_whole_run() {
        let mut w = Worker::new(EngineConfig::default(), NullSink::default(), false);
        let mut feed = Late {
            frames: frames(),
            ready: true,
            settles: false,
            given: false,
        };
        let p = Published::default();
        assert_eq!(p.total().counters.packets, 0);
        p.init(1);
        let stop = AtomicBool::new(true);
        let c = FeedCounters::default();
        run_worker(&mut w, &mut feed, &stop, &c, p.slot(0)).unwrap();
        let t = p.total();
        assert_eq!(
            (t.counters.packets, t.counters.records, t.active),
            (3, 3, 0)
        );
        let flows: u64 = t.by_label.iter().map(|n| n[0]).sum();
        let packets: u64 = t.by_label.iter().map(|n| n[1]).sum();
        assert_eq!((flows, packets), (3, 3));
        assert!(p.slot(1).is_none());
    }

    /// Asked to, a worker counts its open flows by label when it publishes: the three flows
    /// held before the stop, none after (every flow ended, and counted as ended).
    #[test]
    fn open_flows_are_counted_when_asked() {
        let mut w = Worker::new(EngineConfig::default(), NullSink::default(), false);
        let p = Published::default();
        p.count_open();
        p.init(1);
        let fb = frames();
        let b: Vec<RawPacket<'_>> = fb
            .iter()
            .map(|f| RawPacket::ethernet(1_700_000_000_000_000_000, f))
            .collect();
        w.process_batch(&b).unwrap();
        w.snapshot_into(&mut p.slot(0).unwrap().lock().unwrap());
        let t = p.total();
        assert!(t.open_counted);
        let open = t
            .open_by_label
            .iter()
            .fold([0; 3], |a, n| [a[0] + n[0], a[1] + n[1], a[2] + n[2]]);
        let bytes: u64 = fb.iter().map(|f| f.len() as u64).sum();
        assert_eq!(open, [3, 3, bytes]);
        assert_eq!(t.by_label.iter().map(|n| n[0]).sum::<u64>(), 0);
        let mut feed = Late {
            frames: Vec::new(),
            ready: true,
            settles: false,
            given: false,
        };
        let stop = AtomicBool::new(true);
        run_worker(
            &mut w,
            &mut feed,
            &stop,
            &FeedCounters::default(),
            p.slot(0),
        )
        .unwrap();
        let t = p.total();
        assert_eq!(t.open_by_label.iter().map(|n| n[0]).sum::<u64>(), 0);
        assert_eq!(t.by_label.iter().map(|n| n[0]).sum::<u64>(), 3);
        // Not asked: not counted.
        let q = Published::default();
        q.init(1);
        w.snapshot_into(&mut q.slot(0).unwrap().lock().unwrap());
        assert!(!q.total().open_counted);
    }
}
