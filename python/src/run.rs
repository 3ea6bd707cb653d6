//! A run on a thread of its own: its input prepared (files or a live interface), its records
//! as Arrow batches through a bounded channel ([`ChannelSink`]), stopped by Ctrl-C; the C
//! stream capsule pyarrow reads them from.

use arrow_array::ffi_stream::FFI_ArrowArrayStream;
use arrow_array::{RecordBatch, RecordBatchIterator};
use arrow_schema::SchemaRef;
use pyo3::prelude::*;
use pyo3::types::PyCapsule;
use std::io::{self, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, RecvTimeoutError, SyncSender, TrySendError};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;
use wirespeed_capture::CaptureErrorKind;
use wirespeed_engine::events::EventsConfig;
use wirespeed_engine::{EngineConfig, ParallelConfig};
use wirespeed_engine::{Session, Summary};
use wirespeed_export::arrow::BatchSink;
use wirespeed_export::{Columns, NullSink, RecordSink};

use crate::options::*;

/// What the engine thread tells the Python thread, in order.
pub(crate) enum Msg {
    /// A record batch, and the `flow_id` of each of its rows (whether or not the batch keeps
    /// that column): `classify` puts its rows in `flow_id` order with them.
    Batch(RecordBatch, Vec<u64>),
    /// Something to warn about: (`capture`, a damaged input) or (`skipped`, a file of a
    /// directory that is not a capture).
    Warn(&'static str, String),
    /// A live capture's sockets are open: packets are being captured.
    Opened,
    /// The run is over: its counters (and the transaction events, when asked for), or why it
    /// failed.
    Done(Result<Done, Failure>),
}

/// How a run ended well.
pub(crate) struct Done {
    /// The run's counters as (name, value).
    pub(crate) summary: Vec<(&'static str, u64)>,
    /// Transaction events as JSON lines (docs/EVENTS.md), when asked for.
    pub(crate) events: Option<Vec<u8>>,
}

/// A worker's records into record batches, each handed to the channel as soon as it is cut
/// (every `rows` records, and at the worker's end; on a live link also at the engine's
/// periodic flush, about once a second, so records do not wait on a quiet link).
pub(crate) struct ChannelSink {
    pub(crate) batches: BatchSink,
    pub(crate) tx: SyncSender<Msg>,
    /// Live: a batch the channel has no room for is dropped, its records counted here
    /// (capture never waits on Python). None (files): the worker waits for room.
    pub(crate) lost: Option<Arc<AtomicU64>>,
    /// The `flow_id` of each record written and not yet handed over, in order.
    pub(crate) ids: Vec<u64>,
}

/// A send to a reader that is gone: the stream was closed or dropped.
pub(crate) fn closed() -> io::Error {
    io::Error::new(io::ErrorKind::BrokenPipe, "the stream was closed")
}

impl ChannelSink {
    fn hand_over(&mut self) -> io::Result<()> {
        for b in self.batches.take() {
            // Batches are cut from the records in the order they were written.
            let rest = self.ids.split_off(b.num_rows().min(self.ids.len()));
            let ids = std::mem::replace(&mut self.ids, rest);
            match &self.lost {
                None => self.tx.send(Msg::Batch(b, ids)).map_err(|_| closed())?,
                Some(lost) => match self.tx.try_send(Msg::Batch(b, ids)) {
                    Ok(()) => {}
                    Err(TrySendError::Full(Msg::Batch(b, _))) => {
                        lost.fetch_add(b.num_rows() as u64, Ordering::Relaxed);
                    }
                    Err(TrySendError::Full(_)) => {}
                    Err(TrySendError::Disconnected(_)) => return Err(closed()),
                },
            }
        }
        Ok(())
    }
}

impl RecordSink for ChannelSink {
    fn write(&mut self, r: &wirespeed_export::FlowRecord<'_>) -> io::Result<()> {
        self.ids.push(r.flow_id);
        self.batches.write(r)?;
        self.hand_over()
    }

    fn finish(&mut self) -> io::Result<()> {
        self.batches.finish()?;
        self.hand_over()
    }
}

/// The run's transaction events: every worker's whole lines, appended under a lock.
#[derive(Clone, Default)]
pub(crate) struct EventBuf(Arc<Mutex<Vec<u8>>>);

impl Write for EventBuf {
    fn write(&mut self, b: &[u8]) -> io::Result<usize> {
        self.0
            .lock()
            .map_err(|_| io::Error::other("events: a worker panicked"))?
            .extend_from_slice(b);
        Ok(b.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Where a run's packets come from.
pub(crate) enum Source {
    /// Capture files (directories already expanded), each its own capture, in order.
    Files(Vec<PathBuf>),
    /// Live interfaces, until stopped or `duration` passes.
    Live(Box<wirespeed_live::LiveConfig>),
}

/// A run checked and ready to start: every error an option or an input can give is given
/// before anything runs.
pub(crate) struct Prepared {
    pub(crate) source: Source,
    pub(crate) cfg: EngineConfig,
    pub(crate) par: ParallelConfig,
    pub(crate) cols: Columns,
    /// Skipped files of the directories given, to warn about.
    pub(crate) skipped: Vec<String>,
}

/// Check the options and the inputs `paths` (directories expanded, every file openable).
pub(crate) fn prepare_files(paths: Vec<PathBuf>, o: &Options) -> Result<Prepared, Failure> {
    let mut skipped = Vec::new();
    let files = wirespeed_capture::inputs::expand(&paths, &mut |s| skipped.push(s.to_string()))
        .map_err(Failure::Input)?;
    let (cfg, par, cols) = config(o, false)?;
    fits_in_memory(&cfg, par.workers)?;
    // Every input can be opened: a missing or unreadable one is an error before anything runs.
    // A pipe is only looked at: opening it would take the rendezvous with its writer.
    for p in &files {
        if p.as_os_str() != "-" {
            let os = |error| Failure::Os {
                path: p.clone(),
                error,
                what: String::new(),
            };
            if std::fs::metadata(p).map_err(os)?.is_file() {
                std::fs::File::open(p).map_err(os)?;
            }
        }
    }
    Ok(Prepared {
        source: Source::Files(files),
        cfg,
        par,
        cols,
        skipped,
    })
}

/// Check the options of a live capture of `ifaces`.
pub(crate) fn prepare_live(
    ifaces: Vec<String>,
    filter: Option<String>,
    duration: Option<f64>,
    o: &Options,
) -> Result<Prepared, Failure> {
    if ifaces.is_empty() || ifaces.iter().any(|i| i.is_empty() || i.len() > 15) {
        return Err(Failure::Value(
            "interface: one or more interface names (at most 15 bytes each) are needed".into(),
        ));
    }
    if !o.tunnels {
        // As the command line's live: outer flows only is a file's choice too, but allowed.
    }
    let (cfg, par, cols) = config(o, true)?;
    fits_in_memory(&cfg, par.workers)?;
    let filter = match filter {
        Some(f) => Some(
            wirespeed_live::bpf::compile(&f).map_err(|e| Failure::Value(format!("filter: {e}")))?,
        ),
        None => None,
    };
    let duration = match duration {
        None => None,
        Some(d) if d.is_finite() && d > 0.0 => Some(Duration::from_secs_f64(d)),
        Some(d) => {
            return Err(Failure::Value(format!(
                "duration must be a positive number of seconds, got {d}"
            )))
        }
    };
    let lc = wirespeed_live::LiveConfig {
        ifaces,
        workers: par.workers,
        pin: false,
        buffer_mb: par.buffer_mb,
        filter,
        user: None,
        status_every: Duration::ZERO,
        duration,
        engine: cfg.clone(),
        metrics: None,
        act: None,
        source: None,
        source_stats: None,
    };
    Ok(Prepared {
        source: Source::Live(Box::new(lc)),
        cfg,
        par,
        cols,
        skipped: Vec::new(),
    })
}

/// The counters of a run as (name, value).
pub(crate) fn counters(s: &Summary) -> Vec<(&'static str, u64)> {
    let c = &s.counters;
    vec![
        ("packets", c.packets),
        ("bytes", c.bytes),
        ("records", c.records),
        ("capture_errors", c.capture_errors),
        ("inputs", s.files.len() as u64),
    ]
}

/// The run, on its own thread: every input through one session (or the live capture), the
/// records to the channel; the last message is [`Msg::Done`].
pub(crate) fn run(
    p: Prepared,
    tx: SyncSender<Msg>,
    rows: usize,
    stop: Arc<AtomicBool>,
    events: bool,
) {
    let result = run_inner(p, &tx, rows, stop, events);
    // A reader gone has nothing to be told.
    let _ = tx.send(Msg::Done(result));
}

pub(crate) fn run_inner(
    p: Prepared,
    tx: &SyncSender<Msg>,
    rows: usize,
    stop: Arc<AtomicBool>,
    events: bool,
) -> Result<Done, Failure> {
    for s in &p.skipped {
        tx.send(Msg::Warn("skipped", s.clone()))
            .map_err(|_| Failure::Records(closed().to_string()))?;
    }
    let buf = EventBuf::default();
    let mut cfg = p.cfg;
    if events {
        let b = buf.clone();
        cfg.events = Some(EventsConfig::new(move || Box::new(b.clone())));
    }
    let cols = p.cols;
    let records = |e: io::Error| Failure::Records(format!("writing records: {e}"));
    let summary = match p.source {
        Source::Files(files) => {
            cfg.stop = Some(stop.clone());
            let sink = |_| -> Box<dyn RecordSink + Send> {
                if events {
                    Box::new(NullSink::default())
                } else {
                    Box::new(ChannelSink {
                        batches: BatchSink::new(cols, rows),
                        tx: tx.clone(),
                        lost: None,
                        ids: Vec::new(),
                    })
                }
            };
            let mut session = Session::new(cfg, p.par, sink, true);
            let mut not_captures = Vec::new();
            for path in &files {
                let outcome = session.run_file(path, &mut |_, _| {}).map_err(records)?;
                match &outcome.error {
                    Some(e) if matches!(e.kind, CaptureErrorKind::Interrupted) => break,
                    Some(e)
                        if matches!(
                            e.kind,
                            CaptureErrorKind::Empty | CaptureErrorKind::UnknownFormat
                        ) =>
                    {
                        not_captures.push(e.to_string())
                    }
                    Some(e) => tx
                        .send(Msg::Warn("capture", e.to_string()))
                        .map_err(|_| records(closed()))?,
                    None => {}
                }
                if stop.load(Ordering::Relaxed) {
                    break;
                }
            }
            let (summary, _sinks) = session.finish().map_err(records)?;
            if let Some(first) = not_captures.first() {
                return Err(Failure::Input(if not_captures.len() == 1 {
                    first.clone()
                } else {
                    format!(
                        "{first} (and {} more inputs that are not captures)",
                        not_captures.len() - 1
                    )
                }));
            }
            counters(&summary)
        }
        Source::Live(mut lc) => {
            lc.engine = cfg;
            let lost = Arc::new(AtomicU64::new(0));
            let l = lost.clone();
            let sink = |_| ChannelSink {
                batches: BatchSink::new(cols, rows),
                tx: tx.clone(),
                lost: Some(l.clone()),
                ids: Vec::new(),
            };
            let mut opened = || tx.send(Msg::Opened).map_err(|_| closed());
            let o = wirespeed_live::run(&lc, sink, stop, &mut opened, &mut |_| {})
                .map_err(|e| Failure::Live(e.to_string()))?;
            let c = &o.counters;
            vec![
                ("packets", c.packets),
                ("bytes", c.bytes),
                ("records", c.records),
                ("lost_records", lost.load(Ordering::Relaxed)),
                ("kernel_packets", o.kernel.packets),
                ("kernel_drops", o.kernel.drops),
            ]
        }
    };
    let events =
        events.then(|| std::mem::take(&mut *buf.0.lock().unwrap_or_else(|e| e.into_inner())));
    Ok(Done { summary, events })
}

/// A run in progress on its own thread, and the end of its channel.
pub(crate) struct Running {
    pub(crate) rx: Option<Receiver<Msg>>,
    pub(crate) stop: Arc<AtomicBool>,
    pub(crate) thread: Option<JoinHandle<()>>,
}

impl Running {
    /// Start `p` on a thread of its own, batches of `rows` records.
    pub(crate) fn start(p: Prepared, rows: usize, events: bool) -> Result<Running, Failure> {
        let (tx, rx) = sync_channel(CHANNEL_BATCHES);
        let stop = Arc::new(AtomicBool::new(false));
        let s = stop.clone();
        let thread = std::thread::Builder::new()
            .name("wirespeed-run".into())
            .spawn(move || run(p, tx, rows, s, events))
            .map_err(|e| Failure::Records(format!("cannot start the engine's thread: {e}")))?;
        Ok(Running {
            rx: Some(rx),
            stop,
            thread: Some(thread),
        })
    }

    /// The next message, waited for without the GIL; None once the run is over and every
    /// message read. Ctrl-C (Python's signal handler has set its flag) stops the run, waits
    /// for its thread, and raises `KeyboardInterrupt`.
    pub(crate) fn next(&mut self, py: Python<'_>) -> PyResult<Option<Msg>> {
        loop {
            let Some(rx) = self.rx.as_mut() else {
                return Ok(None);
            };
            match py.detach(move || rx.recv_timeout(SIGNAL_POLL)) {
                Ok(m) => return Ok(Some(m)),
                Err(RecvTimeoutError::Disconnected) => {
                    self.end(py);
                    return Ok(None);
                }
                Err(RecvTimeoutError::Timeout) => {
                    if let Err(e) = py.check_signals() {
                        self.end(py);
                        return Err(e);
                    }
                }
            }
        }
    }

    /// Stop the run and let go of it: a file stops being read at its next batch, a live
    /// capture at its next tick, and the workers' sends fail once the channel is gone. The
    /// thread is not waited for: one blocked reading a pipe ends when the pipe gives data or
    /// ends, and must not hang the interpreter meanwhile.
    pub(crate) fn end(&mut self, _py: Python<'_>) {
        self.stop.store(true, Ordering::Relaxed);
        self.rx = None;
        self.thread = None;
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        // Without the GIL's token here: stop it and let the thread end by itself (its sends
        // fail once the channel is dropped with this).
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// An Arrow C stream of `batches` (a PyCapsule named `arrow_array_stream`), which pyarrow
/// imports without a copy; one never imported is released with the capsule.
pub(crate) fn capsule<'py>(
    py: Python<'py>,
    schema: SchemaRef,
    batches: Vec<RecordBatch>,
) -> PyResult<Bound<'py, PyCapsule>> {
    let reader = RecordBatchIterator::new(batches.into_iter().map(Ok), schema);
    let stream = FFI_ArrowArrayStream::new(Box::new(reader));
    PyCapsule::new_with_value(py, stream, c"arrow_array_stream")
}
