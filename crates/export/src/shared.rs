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
    /// When the stop was first seen, as ns after `base` (0: not yet).
    stopped_at: Arc<AtomicU64>,
    base: std::time::Instant,
    /// Records dropped (lines of the dropped chunks).
    pub dropped_records: Arc<AtomicU64>,
    /// Bytes dropped.
    pub dropped_bytes: Arc<AtomicU64>,
    /// Records handed to the queue and not yet written.
    pub queued_records: Arc<AtomicU64>,
}

fn records_in(buf: &[u8]) -> u64 {
    buf.iter().filter(|&&b| b == b'\n').count() as u64
}

impl LossyWriter {
    /// A lossy writer to `out` for a run that ends when `stop` is set, waiting at most `grace`
    /// after it for room; and its writer thread, which ends when every clone of the writer is
    /// dropped and returns the first write error.
    pub fn new(
        mut out: Box<dyn Write + Send>,
        stop: Arc<AtomicBool>,
        grace: std::time::Duration,
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
                base: std::time::Instant::now(),
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
        let now = self.base.elapsed().as_nanos().max(1) as u64;
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
    /// dropping: the shutdown's records are all written by a slow output.
    #[test]
    fn after_the_stop_a_slow_output_is_waited_for() {
        struct Slow(Arc<Mutex<Vec<u8>>>);
        impl Write for Slow {
            fn write(&mut self, b: &[u8]) -> io::Result<usize> {
                std::thread::sleep(std::time::Duration::from_micros(200));
                self.0.lock().unwrap().extend_from_slice(b);
                Ok(b.len())
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let out: Arc<Mutex<Vec<u8>>> = Arc::default();
        let stop = Arc::new(AtomicBool::new(true));
        let grace = std::time::Duration::from_secs(30);
        let (mut w, writer) = LossyWriter::new(Box::new(Slow(out.clone())), stop, grace);
        let n = 4 * LOSSY_CHUNKS as u64;
        for _ in 0..n {
            w.write_all(b"r\n").unwrap();
        }
        assert_eq!(w.dropped_records.load(Ordering::Relaxed), 0);
        drop(w);
        writer.join().unwrap().unwrap();
        assert_eq!(out.lock().unwrap().len() as u64, 2 * n);
    }

    /// A stalled output after the stop: chunks wait out the grace period, then are dropped and
    /// counted, so shutdown ends.
    #[test]
    fn a_stalled_output_after_the_stop_is_given_up_after_the_grace() {
        let (_go, gate) = std::sync::mpsc::channel::<()>();
        let out: Arc<Mutex<Vec<u8>>> = Arc::default();
        let stop = Arc::new(AtomicBool::new(true));
        let grace = std::time::Duration::from_millis(200);
        let (mut w, _writer) = LossyWriter::new(Box::new(Gate(gate, out)), stop, grace);
        let t = std::time::Instant::now();
        for _ in 0..LOSSY_CHUNKS + 5 {
            w.write_all(b"r\n").unwrap();
        }
        assert!(t.elapsed() < std::time::Duration::from_secs(20));
        assert!(w.dropped_records.load(Ordering::Relaxed) >= 3);
    }
}
