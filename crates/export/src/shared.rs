//! Outputs several workers share. Each worker's record writer formats into its own buffer and
//! hands over large chunks of whole records; these types take the chunks.
//!
//! - [`SharedWriter`]: under a lock, to one output, waiting for it (a capture file must not lose
//!   a record).
//! - [`LossyWriter`]: through a bounded queue to a writer thread; when the output stalls and the
//!   queue is full, a chunk is dropped and counted, so a live capture never waits on its output.

use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// One output behind a lock.
pub type SharedOut = Arc<Mutex<Box<dyn Write + Send>>>;

/// A `Write` that hands every chunk to the shared output whole.
#[derive(Clone)]
pub struct SharedWriter(pub SharedOut);

impl SharedWriter {
    /// A writer to `out`, shared by every clone.
    pub fn new(out: Box<dyn Write + Send>) -> Self {
        SharedWriter(Arc::new(Mutex::new(out)))
    }
}

impl Write for SharedWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut o = self
            .0
            .lock()
            .map_err(|_| io::Error::other("output lock poisoned"))?;
        o.write_all(buf)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        let mut o = self
            .0
            .lock()
            .map_err(|_| io::Error::other("output lock poisoned"))?;
        o.flush()
    }
}

/// Chunks a [`LossyWriter`]'s queue holds (of about 64 KiB each).
pub const LOSSY_CHUNKS: usize = 256;

/// Chunks of whole records through a bounded queue to a writer thread ([`LossyWriter::new`]).
/// While the run goes on, a chunk that finds the queue full is dropped and counted: capture never
/// waits on its output. Once the run stops (its stop flag is set), a chunk waits for room, until
/// the grace period after the stop runs out: the last records, the open flows' at shutdown, are
/// written rather than dropped unless the output is stalled. Every record is written, counted as
/// dropped, or still queued ([`LossyWriter::queued_records`]) when the writer is abandoned.
#[derive(Clone)]
pub struct LossyWriter {
    tx: crossbeam_channel::Sender<Vec<u8>>,
    stop: Arc<AtomicBool>,
    grace: std::time::Duration,
    /// When the stop was first seen, as ns on `clock` (0: not yet).
    stopped_at: Arc<AtomicU64>,
    clock: Clock,
    /// Records dropped (lines of the dropped chunks).
    pub dropped_records: Arc<AtomicU64>,
    /// Bytes dropped.
    pub dropped_bytes: Arc<AtomicU64>,
    /// Records handed to the queue and not yet written.
    pub queued_records: Arc<AtomicU64>,
}

/// Time since the writer was made: the monotonic clock, or a test's (read once per chunk, never
/// per record).
type Clock = Arc<dyn Fn() -> std::time::Duration + Send + Sync>;

fn records_in(buf: &[u8]) -> u64 {
    buf.iter().filter(|&&b| b == b'\n').count() as u64
}

impl LossyWriter {
    /// A lossy writer to `out` for a run that ends when `stop` is set, waiting at most `grace`
    /// after it for room; and its writer thread, which ends when every clone of the writer is
    /// dropped and returns the first write error.
    pub fn new(
        out: Box<dyn Write + Send>,
        stop: Arc<AtomicBool>,
        grace: std::time::Duration,
    ) -> (Self, std::thread::JoinHandle<io::Result<()>>) {
        let base = std::time::Instant::now();
        Self::with_clock(out, stop, grace, Arc::new(move || base.elapsed()))
    }

    /// [`LossyWriter::new`] with the grace period measured on `clock` (tests: time that passes
    /// only when the test says so).
    fn with_clock(
        mut out: Box<dyn Write + Send>,
        stop: Arc<AtomicBool>,
        grace: std::time::Duration,
        clock: Clock,
    ) -> (Self, std::thread::JoinHandle<io::Result<()>>) {
        let (tx, rx) = crossbeam_channel::bounded::<Vec<u8>>(LOSSY_CHUNKS);
        let queued_records: Arc<AtomicU64> = Arc::default();
        let queued = queued_records.clone();
        let writer = std::thread::spawn(move || -> io::Result<()> {
            let mut res = Ok(());
            for chunk in rx {
                if res.is_ok() {
                    res = out.write_all(&chunk);
                }
                // Written, or lost to the error the run reports: no longer queued.
                queued.fetch_sub(records_in(&chunk), Ordering::Relaxed);
            }
            res?;
            out.flush()
        });
        (
            LossyWriter {
                tx,
                stop,
                grace,
                stopped_at: Arc::default(),
                clock,
                dropped_records: Arc::default(),
                dropped_bytes: Arc::default(),
                queued_records,
            },
            writer,
        )
    }

    /// How long a chunk may still wait for room: None while the run goes on.
    fn patience(&self) -> Option<std::time::Duration> {
        if !self.stop.load(Ordering::Relaxed) {
            return None;
        }
        let now = (self.clock)().as_nanos().max(1) as u64;
        let first =
            match self
                .stopped_at
                .compare_exchange(0, now, Ordering::Relaxed, Ordering::Relaxed)
            {
                Ok(_) => now,
                Err(t) => t,
            };
        let spent = std::time::Duration::from_nanos(now.saturating_sub(first));
        Some(self.grace.saturating_sub(spent))
    }
}

impl Write for LossyWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        // One copy per chunk of records (about 64 KiB), not per packet.
        let records = records_in(buf);
        self.queued_records.fetch_add(records, Ordering::Relaxed);
        let sent = match self.patience() {
            None => self.tx.try_send(buf.to_vec()).is_ok(),
            Some(wait) => self.tx.send_timeout(buf.to_vec(), wait).is_ok(),
        };
        if !sent {
            self.queued_records.fetch_sub(records, Ordering::Relaxed);
            self.dropped_records.fetch_add(records, Ordering::Relaxed);
            self.dropped_bytes
                .fetch_add(buf.len() as u64, Ordering::Relaxed);
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `Write` that blocks until the test lets it go.
    struct Gate(std::sync::mpsc::Receiver<()>, Arc<Mutex<Vec<u8>>>);

    impl Write for Gate {
        fn write(&mut self, b: &[u8]) -> io::Result<usize> {
            let _ = self.0.recv();
            self.1.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn shared_writers_write_whole_chunks_to_one_output() {
        let out: Arc<Mutex<Vec<u8>>> = Arc::default();
        struct V(Arc<Mutex<Vec<u8>>>);
        impl Write for V {
            fn write(&mut self, b: &[u8]) -> io::Result<usize> {
                self.0.lock().unwrap().extend_from_slice(b);
                Ok(b.len())
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let w = SharedWriter::new(Box::new(V(out.clone())));
        let threads: Vec<_> = (0..4u8)
            .map(|i| {
                let mut w = w.clone();
                std::thread::spawn(move || {
                    for _ in 0..100 {
                        w.write_all(&[b'a' + i; 10]).unwrap();
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        let got = out.lock().unwrap().clone();
        assert_eq!(got.len(), 4000);
        for c in got.chunks(10) {
            assert!(c.iter().all(|&b| b == c[0]), "a chunk was interleaved");
        }
    }

    #[test]
    fn a_stalled_output_drops_whole_chunks_and_counts_them() {
        let (go, gate) = std::sync::mpsc::channel();
        let out: Arc<Mutex<Vec<u8>>> = Arc::default();
        let stop: Arc<AtomicBool> = Arc::default();
        let grace = std::time::Duration::from_secs(5);
        let (mut w, writer) = LossyWriter::new(Box::new(Gate(gate, out.clone())), stop, grace);
        // The writer thread takes one chunk and blocks on it; the queue then fills.
        for _ in 0..LOSSY_CHUNKS + 10 {
            w.write_all(b"r1\nr2\n").unwrap();
        }
        let dropped = w.dropped_records.load(Ordering::Relaxed);
        assert!(dropped >= 2 * 9, "{dropped} records counted dropped");
        assert_eq!(dropped % 2, 0, "whole chunks");
        let (records, bytes, queued) = (
            w.dropped_records.clone(),
            w.dropped_bytes.clone(),
            w.queued_records.clone(),
        );
        assert_eq!(
            queued.load(Ordering::Relaxed) + dropped,
            2 * (LOSSY_CHUNKS as u64 + 10),
            "every record is queued or dropped"
        );
        drop(w);
        for _ in 0..LOSSY_CHUNKS + 10 {
            let _ = go.send(());
        }
        writer.join().unwrap().unwrap();
        let written = out.lock().unwrap().iter().filter(|&&b| b == b'\n').count() as u64;
        assert_eq!(
            written + records.load(Ordering::Relaxed),
            2 * (LOSSY_CHUNKS as u64 + 10)
        );
        assert_eq!(
            bytes.load(Ordering::Relaxed),
            3 * records.load(Ordering::Relaxed)
        );
        assert_eq!(queued.load(Ordering::Relaxed), 0);
    }

    /// Once the run stops, a full queue is waited on (within the grace period) instead of
    /// dropping: the shutdown's records are all written by a slow output. No clock decides it:
    /// the output is let go only once the queue is full and a chunk waits for room.
    #[test]
    fn after_the_stop_a_slow_output_is_waited_for() {
        let (go, gate) = std::sync::mpsc::channel();
        let out: Arc<Mutex<Vec<u8>>> = Arc::default();
        let stop = Arc::new(AtomicBool::new(true));
        // A clock that stands still: every chunk may wait the whole grace, a failsafe (the
        // output is let go long before).
        let grace = std::time::Duration::from_secs(120);
        let still: Clock = Arc::new(|| std::time::Duration::ZERO);
        let (w, writer) =
            LossyWriter::with_clock(Box::new(Gate(gate, out.clone())), stop, grace, still);
        let (queued, dropped) = (w.queued_records.clone(), w.dropped_records.clone());
        let n = 4 * LOSSY_CHUNKS as u64;
        let producer = std::thread::spawn(move || {
            let mut w = w;
            for _ in 0..n {
                w.write_all(b"r\n").unwrap();
            }
        });
        // The queue full, one chunk held by the blocked output and one more waiting for room
        // (or, were it dropped instead, the producer done).
        while queued.load(Ordering::Relaxed) < LOSSY_CHUNKS as u64 + 2 && !producer.is_finished() {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        for _ in 0..n {
            go.send(()).unwrap();
        }
        producer.join().unwrap();
        assert_eq!(dropped.load(Ordering::Relaxed), 0);
        writer.join().unwrap().unwrap();
        assert_eq!(out.lock().unwrap().len() as u64, 2 * n);
        assert_eq!(queued.load(Ordering::Relaxed), 0);
    }

    /// A stalled output after the stop: chunks wait out the grace period, counted once from the
    /// stop, then are dropped and counted at once, so shutdown ends. The grace passes on the
    /// test's clock, not the machine's.
    #[test]
    fn a_stalled_output_after_the_stop_is_given_up_after_the_grace() {
        let (_go, gate) = std::sync::mpsc::channel::<()>();
        let out: Arc<Mutex<Vec<u8>>> = Arc::default();
        let stop = Arc::new(AtomicBool::new(true));
        let grace = std::time::Duration::from_secs(3600);
        let now = Arc::new(AtomicU64::new(0));
        let clock: Clock = {
            let now = now.clone();
            Arc::new(move || std::time::Duration::from_nanos(now.load(Ordering::Relaxed)))
        };
        let (mut w, _writer) =
            LossyWriter::with_clock(Box::new(Gate(gate, out)), stop, grace, clock);
        // Within the grace: the queue takes them (one may be held by the stalled output).
        for _ in 0..LOSSY_CHUNKS {
            w.write_all(b"r\n").unwrap();
        }
        assert_eq!(w.dropped_records.load(Ordering::Relaxed), 0);
        // The grace spent since the stop: no more waiting (with an hour left they would wait).
        now.store(grace.as_nanos() as u64 + 1, Ordering::Relaxed);
        for _ in 0..5 {
            w.write_all(b"r\n").unwrap();
        }
        assert!(w.dropped_records.load(Ordering::Relaxed) >= 4);
        assert_eq!(
            w.queued_records.load(Ordering::Relaxed) + w.dropped_records.load(Ordering::Relaxed),
            LOSSY_CHUNKS as u64 + 5
        );
    }
}
