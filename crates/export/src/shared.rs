//! Outputs several workers share. Each worker's record writer formats into its own buffer and
//! hands over large chunks of whole records; these types take the chunks.
//!
//! - [`SharedWriter`]: under a lock, to one output, waiting for it (a capture file must not lose
//!   a record).
//! - [`LossyWriter`]: through a bounded queue to a writer thread; when the output stalls and the
//!   queue is full, a chunk is dropped and counted, so a live capture never waits on its output.

use std::io::{self, Write};
use std::sync::atomic::{AtomicU64, Ordering};
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

/// Chunks of whole records through a bounded queue to a writer thread ([`LossyWriter::new`]);
/// a chunk that finds the queue full is dropped and counted.
#[derive(Clone)]
pub struct LossyWriter {
    tx: std::sync::mpsc::SyncSender<Vec<u8>>,
    /// Records dropped (lines of the dropped chunks).
    pub dropped_records: Arc<AtomicU64>,
    /// Bytes dropped.
    pub dropped_bytes: Arc<AtomicU64>,
}

impl LossyWriter {
    /// A lossy writer to `out`, and its writer thread, which ends when every clone of the
    /// writer is dropped and returns the first write error.
    pub fn new(mut out: Box<dyn Write + Send>) -> (Self, std::thread::JoinHandle<io::Result<()>>) {
        let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<u8>>(LOSSY_CHUNKS);
        let writer = std::thread::spawn(move || -> io::Result<()> {
            let mut res = Ok(());
            for chunk in rx {
                if res.is_ok() {
                    res = out.write_all(&chunk);
                }
            }
            res?;
            out.flush()
        });
        (
            LossyWriter {
                tx,
                dropped_records: Arc::default(),
                dropped_bytes: Arc::default(),
            },
            writer,
        )
    }
}

impl Write for LossyWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        // One copy per chunk of records (about 64 KiB), not per packet.
        if self.tx.try_send(buf.to_vec()).is_err() {
            let records = buf.iter().filter(|&&b| b == b'\n').count();
            self.dropped_records
                .fetch_add(records as u64, Ordering::Relaxed);
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
        let (mut w, writer) = LossyWriter::new(Box::new(Gate(gate, out.clone())));
        // The writer thread takes one chunk and blocks on it; the queue then fills.
        for _ in 0..LOSSY_CHUNKS + 10 {
            w.write_all(b"r1\nr2\n").unwrap();
        }
        let dropped = w.dropped_records.load(Ordering::Relaxed);
        assert!(dropped >= 2 * 9, "{dropped} records counted dropped");
        assert_eq!(dropped % 2, 0, "whole chunks");
        let (records, bytes) = (w.dropped_records.clone(), w.dropped_bytes.clone());
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
    }
}
