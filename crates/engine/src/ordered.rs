//! Records in a fixed order (`classify --ordered`): with several workers each writes the flows
//! it ended as it ends them, so the order of a run's records changes from run to run (the
//! records themselves do not). An [`Order`] holds every record of the run, formatted, until
//! the end, then writes them sorted by `flow_id` — the number of each flow's first packet in
//! the input, so the order the flows began in, whatever the number of workers or the dispatch
//! key; a flow's records (interim ones with `--active-timeout`, then its last) keep the order
//! they were written in. Two runs of the same input then give the same bytes. The price is
//! memory: every record of the run is held (about its formatted size) until the end.

use std::io::{self, Write};
use std::sync::{Arc, Mutex};
use wirespeed_export::{FlowRecord, RecordSink};

/// Where one worker's records are formatted: a buffer its sink's formatter writes to, read
/// back by the [`Ordered`] sink that owns it.
#[derive(Clone, Default)]
pub struct Tap(Arc<Mutex<Vec<u8>>>);

impl Tap {
    fn len(&self) -> usize {
        self.0.lock().map_or(0, |b| b.len())
    }
}

impl Write for Tap {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0
            .lock()
            .map_err(|_| io::Error::other("record buffer poisoned"))?
            .extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// One worker's records: their bytes and, for each, (`flow_id`, start, end) in them.
type Part = (Tap, Vec<(u64, usize, usize)>);

/// Every record of a run, held until [`Order::write_to`] writes them in order.
#[derive(Clone, Default)]
pub struct Order {
    parts: Arc<Mutex<Vec<Part>>>,
}

impl Order {
    /// An empty order.
    pub fn new() -> Self {
        Self::default()
    }

    /// A sink for one worker: `make` builds the record formatter (JSON, CSV without its
    /// header) over the [`Tap`] it is given.
    pub fn sink<S: RecordSink>(&self, make: impl FnOnce(Tap) -> S) -> Ordered<S> {
        let tap = Tap::default();
        let part = {
            let mut parts = self.parts.lock().unwrap_or_else(|e| e.into_inner());
            parts.push((tap.clone(), Vec::new()));
            parts.len() - 1
        };
        Ordered {
            inner: make(tap.clone()),
            tap,
            index: Vec::new(),
            order: self.clone(),
            part,
        }
    }

    /// Write every record held, by `flow_id` (a flow's records in the order written), to
    /// `out`; the records are then forgotten. Call it once every sink has finished.
    pub fn write_to(&self, out: &mut dyn Write) -> io::Result<()> {
        let parts = std::mem::take(&mut *self.parts.lock().unwrap_or_else(|e| e.into_inner()));
        let mut all: Vec<(u64, usize, usize, usize)> = parts
            .iter()
            .enumerate()
            .flat_map(|(p, (_, index))| index.iter().map(move |&(id, s, e)| (id, p, s, e)))
            .collect();
        // A flow's records all come from one worker, in the order of their offsets there.
        all.sort_unstable();
        let bytes: Vec<_> = parts
            .iter()
            .map(|(tap, _)| tap.0.lock().unwrap_or_else(|e| e.into_inner()))
            .collect();
        let mut w = io::BufWriter::with_capacity(1 << 16, out);
        for (_, p, s, e) in all {
            w.write_all(&bytes[p][s..e])?;
        }
        w.flush()
    }
}

/// A worker's sink under an [`Order`]: each record is formatted by the inner sink at once and
/// held; [`RecordSink::finish`] hands what it holds to the order.
pub struct Ordered<S: RecordSink> {
    inner: S,
    tap: Tap,
    index: Vec<(u64, usize, usize)>,
    order: Order,
    part: usize,
}

impl<S: RecordSink> RecordSink for Ordered<S> {
    fn write(&mut self, r: &FlowRecord<'_>) -> io::Result<()> {
        let start = self.tap.len();
        self.inner.write(r)?;
        // The formatter hands the record over now, whole: where it ends is known.
        self.inner.finish()?;
        self.index.push((r.flow_id, start, self.tap.len()));
        Ok(())
    }

    fn finish(&mut self) -> io::Result<()> {
        self.inner.finish()?;
        let mut parts = self.order.parts.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(p) = parts.get_mut(self.part) {
            p.1.append(&mut self.index);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{gen, EngineConfig, ParallelConfig, Pool};
    use wirespeed_export::JsonLinesWriter;

    /// The demo twice through 2 workers, under two dispatch keys, with and without a reader
    /// thread: byte for byte the same output, its flow ids ascending (issue 33: record order
    /// changed from run to run).
    #[test]
    fn runs_give_the_same_bytes() {
        let dir = std::env::temp_dir().join(format!("wirespeed-ordered-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("demo.pcap");
        gen::demo(std::io::BufWriter::new(
            std::fs::File::create(&path).unwrap(),
        ))
        .unwrap();
        let run = |seed: u64, reader_thread: bool| {
            let cfg = EngineConfig {
                dispatch_seed: Some(seed),
                ..EngineConfig::default()
            };
            let par = ParallelConfig {
                workers: 2,
                pin: false,
                buffer_mb: 1,
                reader_thread,
            };
            let order = Order::new();
            let mut pool = Pool::new(
                cfg,
                par,
                |_| order.sink(|t| JsonLinesWriter::new(t, true)),
                true,
            );
            for _ in 0..2 {
                pool.run_file(&path, &mut |_, _| {}).unwrap();
            }
            pool.finish().unwrap();
            let mut out = Vec::new();
            order.write_to(&mut out).unwrap();
            String::from_utf8(out).unwrap()
        };
        let base = run(1, false);
        let ids: Vec<u64> = base
            .lines()
            .map(|l| {
                let v: serde_json::Value = serde_json::from_str(l).unwrap();
                v["flow_id"].as_u64().unwrap()
            })
            .collect();
        assert!(
            ids.len() > 10 && ids.windows(2).all(|w| w[0] < w[1]),
            "{ids:?}"
        );
        for (seed, reader_thread) in [(2, false), (1, true), (3, true)] {
            assert_eq!(
                run(seed, reader_thread),
                base,
                "seed {seed}, reader {reader_thread}"
            );
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
