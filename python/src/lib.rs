//! `wirespeed._wirespeed`: the native half of the `wirespeed` Python package.
//!
//! Every run is a [`Session`] (the runtime facade the command line's `classify` runs) or a live
//! capture ([`wirespeed_live::run`], the command line's `live`) on a thread of its own, its
//! workers' records going into Arrow record batches ([`wirespeed_export::arrow::BatchSink`]:
//! the Parquet output's columns and types) that cross a bounded channel to the Python thread
//! (`ChannelSink`). The Python thread waits on that channel without the GIL, looking at
//! Python's signal flag every `SIGNAL_POLL` (100 ms): Ctrl-C stops the run (a file stops being read
//! at its next batch, [`EngineConfig::stop`]) and raises `KeyboardInterrupt`.
//!
//! `classify` gathers every batch and hands them to pyarrow through the Arrow C stream
//! interface (a PyCapsule named `arrow_array_stream`: no copy of the columns); a `Stream`
//! hands them over one at a time as workers cut them, so memory stays a few batches' whatever
//! the input (files: the engine waits for the reader; a live link: what the reader has no room
//! for is dropped and counted, capture never waits on Python).
//!
//! The pure-Python half (`python/wirespeed/__init__.py`) checks the options' types, turns the
//! capsules into pyarrow objects and the warnings into `warnings.warn`. Values are checked
//! here, each error naming its option: `ValueError`; inputs or option files that cannot be
//! read: `OSError` naming the path.

use arrow_array::ffi_stream::FFI_ArrowArrayStream;
use arrow_array::{RecordBatch, RecordBatchIterator};
use arrow_schema::SchemaRef;
use pyo3::exceptions::{PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyCapsule};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, RecvTimeoutError, SyncSender, TrySendError};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;
use wirespeed_capture::CaptureErrorKind;
use wirespeed_classify::ClassifierSet;
use wirespeed_engine::events::EventsConfig;
use wirespeed_engine::{EngineConfig, ModelSource, ParallelConfig, RuleSources, Rules, RulesError};
use wirespeed_engine::{Session, Summary};
use wirespeed_export::arrow::BatchSink;
use wirespeed_export::{Columns, NullSink, RecordSink};
use wirespeed_flow::{FlowConfig, Timeouts};
use wirespeed_wire::DecodeConfig;

/// Records per Arrow record batch of `classify` (and chunk of the table's columns), per worker.
const BATCH_ROWS: usize = 65_536;

/// Most records a batch of a [`Stream`] may be asked to hold.
const MAX_BATCH_ROWS: i64 = 1 << 20;

/// Batches waiting in the channel between the engine and the Python thread: with the batch
/// size, what bounds a run's memory beyond its flow tables.
const CHANNEL_BATCHES: usize = 4;

/// How often a wait on the engine looks at Python's signal flag (Ctrl-C).
const SIGNAL_POLL: Duration = Duration::from_millis(100);

/// Most records a flow table may hold (as the command line's `--max-flows`).
const MAX_FLOWS: i64 = 1 << 28;

/// Largest option file read, by what it is (as the command line's limits).
const MAX_SIGNATURE_FILE: u64 = 4 << 20;
const MAX_PATTERN_FILE: u64 = 16 << 20;
const MAX_LIST_FILE: u64 = 64 << 20;
const MAX_MODEL_FILE: u64 = 64 << 20;
const MAX_LABELS_FILE: u64 = 64 << 20;

/// Why a run did not give a table.
enum Failure {
    /// A bad option value (`ValueError`).
    Value(String),
    /// A path that cannot be read (`OSError(errno, strerror, filename)` when the system said
    /// why, else `OSError(message)`).
    Os {
        path: PathBuf,
        error: io::Error,
        what: String,
    },
    /// Anything else (`OSError(message)`): an input that is not a capture, a directory that
    /// cannot be listed.
    Input(String),
    /// Writing records failed (`RuntimeError`): a bug, not bad input.
    Records(String),
    /// A live capture that could not run (`OSError(message)`): no such interface, no
    /// privilege, the interface gone.
    Live(String),
}

impl From<Failure> for PyErr {
    fn from(f: Failure) -> PyErr {
        match f {
            Failure::Value(m) => PyValueError::new_err(m),
            Failure::Os { path, error, what } => match error.raw_os_error() {
                // OSError(errno, strerror, filename): Python picks the subclass
                // (FileNotFoundError, PermissionError, ...) from the errno.
                Some(code) => {
                    let strerror = io::Error::from_raw_os_error(code).to_string();
                    let strerror = match strerror.rfind(" (os error") {
                        Some(i) => strerror[..i].to_string(),
                        None => strerror,
                    };
                    let strerror = if what.is_empty() {
                        strerror
                    } else {
                        format!("cannot read {what}: {strerror}")
                    };
                    PyOSError::new_err((code, strerror, path.display().to_string()))
                }
                None => PyOSError::new_err(format!(
                    "cannot read {what}{}{}: {error}",
                    if what.is_empty() { "" } else { " " },
                    path.display()
                )),
            },
            Failure::Input(m) => PyOSError::new_err(m),
            Failure::Records(m) => PyRuntimeError::new_err(m),
            Failure::Live(m) => PyOSError::new_err(m),
        }
    }
}

/// The options of [`classify`], checked for their types by the Python wrapper.
struct Options {
    workers: Option<i64>,
    classifiers: String,
    stats: Vec<String>,
    rules: Option<PathBuf>,
    hosts: Option<PathBuf>,
    networks: Option<PathBuf>,
    signatures: Option<PathBuf>,
    patterns: Option<PathBuf>,
    model: Option<PathBuf>,
    /// A model given as bytes (a `wirespeed.train` result), instead of a file.
    model_bytes: Option<Vec<u8>>,
    no_model: bool,
    timeouts: [(Option<f64>, &'static str, f64); 5],
    max_flows: i64,
    features: bool,
    community_id: bool,
    tunnels: bool,
}

/// The bytes of the option file `p`, refused past `cap` bytes (a FIFO or `/dev/zero` given by
/// mistake must not fill memory).
fn read_capped(p: &Path, cap: u64, what: &str) -> Result<Vec<u8>, Failure> {
    let os = |error| Failure::Os {
        path: p.to_path_buf(),
        error,
        what: what.to_string(),
    };
    if std::fs::metadata(p).map_err(os)?.is_dir() {
        return Err(Failure::Value(format!(
            "{}: the {what} is a directory",
            p.display()
        )));
    }
    let f = std::fs::File::open(p).map_err(os)?;
    let mut b = Vec::new();
    f.take(cap + 1).read_to_end(&mut b).map_err(os)?;
    if b.len() as u64 > cap {
        return Err(Failure::Value(format!(
            "{}: the {what} is larger than {} MiB, the most read",
            p.display(),
            cap >> 20
        )));
    }
    Ok(b)
}

/// The run's rules: the built-in ones with the files the options name. Errors name the file
/// (and, from the parsers, its line), with the command line's messages.
fn load_rules(o: &Options) -> Result<Rules, Failure> {
    let text = |p: &Option<PathBuf>, cap: u64, what: &str| -> Result<Option<String>, Failure> {
        let Some(p) = p else { return Ok(None) };
        String::from_utf8(read_capped(p, cap, what)?)
            .map(Some)
            .map_err(|_| Failure::Value(format!("{}: the {what} is not UTF-8 text", p.display())))
    };
    let src = RuleSources {
        signatures: text(&o.signatures, MAX_SIGNATURE_FILE, "signature file")?,
        patterns: text(&o.patterns, MAX_PATTERN_FILE, "pattern file")?,
        model: match (&o.model, &o.model_bytes, o.no_model) {
            (Some(p), _, _) => ModelSource::Bytes(read_capped(p, MAX_MODEL_FILE, "model")?),
            (None, Some(b), _) => ModelSource::Bytes(b.clone()),
            (None, None, true) => ModelSource::None,
            (None, None, false) => ModelSource::Builtin,
        },
        protos: text(&o.rules, MAX_LIST_FILE, "rules file")?,
        hosts: text(&o.hosts, MAX_LIST_FILE, "host-name list")?,
        networks: text(&o.networks, MAX_LIST_FILE, "address-owner list")?,
    };
    Rules::load(&src).map_err(|e| {
        let (file, option) = match &e {
            RulesError::Signatures(_) => (o.signatures.as_deref(), "signatures"),
            RulesError::Patterns(_) => (o.patterns.as_deref(), "patterns"),
            RulesError::Model(_) => (o.model.as_deref(), "model"),
            RulesError::Networks(_) => (o.networks.as_deref(), "networks"),
            RulesError::Hosts(_) => (o.hosts.as_deref(), "hosts"),
            RulesError::Protos(_) => (o.rules.as_deref(), "rules"),
            RulesError::Labels(_) => (None, "rules"),
        };
        Failure::Value(match file {
            Some(p) => format!("{option}: {}: {e}", p.display()),
            None => format!("{option}: {e}"),
        })
    })
}

/// Seconds as the engine's nanoseconds: positive, `inf` (or past u64's ~584 years) never.
fn secs(s: f64, option: &str) -> Result<u64, Failure> {
    if s > 0.0 {
        Ok(if s * 1e9 >= u64::MAX as f64 {
            Timeouts::NEVER
        } else {
            (s * 1e9) as u64
        })
    } else {
        Err(Failure::Value(format!(
            "{option} must be a positive number of seconds, or math.inf (got {s})"
        )))
    }
}

/// `stats` families: (distributions, TCP analysis, payload entropy).
fn stats_families(stats: &[String]) -> Result<(bool, bool, bool), Failure> {
    wirespeed_engine::stats_families(stats.iter().map(String::as_str)).map_err(|other| {
        Failure::Value(format!(
            "stats: {other:?} is not a family; the families are: dist, tcp, entropy"
        ))
    })
}

/// The engine's configuration and the columns of its records; `live`: for a live link (the
/// sweep writes the interims of quiet flows, as the command line's `live`).
fn config(o: &Options, live: bool) -> Result<(EngineConfig, ParallelConfig, Columns), Failure> {
    if !(1..=MAX_FLOWS).contains(&o.max_flows) {
        return Err(Failure::Value(format!(
            "max_flows must be between 1 and {MAX_FLOWS} (about 210 bytes of memory a flow), \
             got {}",
            o.max_flows
        )));
    }
    let par = ParallelConfig::default();
    let workers = match o.workers {
        None => par.workers,
        Some(w) if (1..=128).contains(&w) => w as usize,
        Some(w) => {
            return Err(Failure::Value(format!(
                "workers must be between 1 and 128, got {w}"
            )))
        }
    };
    let classifiers = ClassifierSet::parse(&o.classifiers)
        .map_err(|e| Failure::Value(format!("classifiers: {e}")))?;
    let (dist, tcp, entropy) = stats_families(&o.stats)?;
    let [tcp_t, udp_t, other_t, closed_t, active_t] = o
        .timeouts
        .map(|(v, name, default)| secs(v.unwrap_or(default), name));
    let timeouts = Timeouts {
        tcp_ns: tcp_t?,
        udp_ns: udp_t?,
        other_ns: other_t?,
        closed_ns: closed_t?,
        active_ns: active_t?,
    };
    let rules = load_rules(o)?;
    let cfg = EngineConfig {
        flow: FlowConfig {
            capacity: o.max_flows as usize,
            timeouts,
            sweep_interims: live,
            ..FlowConfig::default()
        },
        decode: DecodeConfig {
            decode_tunnels: o.tunnels,
        },
        classifiers,
        dist,
        tcp,
        entropy,
        ..EngineConfig::with_rules(Arc::new(rules))
    };
    let cols = Columns {
        with_source: true,
        features: o.features,
        community: o.community_id,
        dist,
        tcp,
        ..Columns::default()
    };
    Ok((cfg, ParallelConfig { workers, ..par }, cols))
}

/// Refuse flow tables larger than the memory available (the allocation would abort the
/// interpreter): said with the figures, as the command line does.
fn fits_in_memory(cfg: &EngineConfig, workers: usize) -> Result<(), Failure> {
    let need = wirespeed_engine::reserved_bytes(cfg, workers);
    match wirespeed_engine::memory_available() {
        Some(avail) if need > avail => Err(Failure::Value(format!(
            "max_flows {}: the flow tables of {workers} worker{} need {:.1} GiB, more than the \
             {:.1} GiB of memory available; lower max_flows (about 210 bytes a flow)",
            cfg.flow.capacity,
            if workers == 1 { "" } else { "s" },
            need as f64 / (1u64 << 30) as f64,
            avail as f64 / (1u64 << 30) as f64
        ))),
        _ => Ok(()),
    }
}

/// What the engine thread tells the Python thread, in order.
enum Msg {
    /// A record batch.
    Batch(RecordBatch),
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
struct Done {
    /// The run's counters as (name, value).
    summary: Vec<(&'static str, u64)>,
    /// Transaction events as JSON lines (docs/EVENTS.md), when asked for.
    events: Option<Vec<u8>>,
}

/// A worker's records into record batches, each handed to the channel as soon as it is cut
/// (every `rows` records, and at the worker's end; on a live link also at the engine's
/// periodic flush, about once a second, so records do not wait on a quiet link).
struct ChannelSink {
    batches: BatchSink,
    tx: SyncSender<Msg>,
    /// Live: a batch the channel has no room for is dropped, its records counted here
    /// (capture never waits on Python). None (files): the worker waits for room.
    lost: Option<Arc<AtomicU64>>,
}

/// A send to a reader that is gone: the stream was closed or dropped.
fn closed() -> io::Error {
    io::Error::new(io::ErrorKind::BrokenPipe, "the stream was closed")
}

impl ChannelSink {
    fn hand_over(&mut self) -> io::Result<()> {
        for b in self.batches.take() {
            match &self.lost {
                None => self.tx.send(Msg::Batch(b)).map_err(|_| closed())?,
                Some(lost) => match self.tx.try_send(Msg::Batch(b)) {
                    Ok(()) => {}
                    Err(TrySendError::Full(Msg::Batch(b))) => {
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
struct EventBuf(Arc<Mutex<Vec<u8>>>);

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
enum Source {
    /// Capture files (directories already expanded), each its own capture, in order.
    Files(Vec<PathBuf>),
    /// Live interfaces, until stopped or `duration` passes.
    Live(Box<wirespeed_live::LiveConfig>),
}

/// A run checked and ready to start: every error an option or an input can give is given
/// before anything runs.
struct Prepared {
    source: Source,
    cfg: EngineConfig,
    par: ParallelConfig,
    cols: Columns,
    /// Skipped files of the directories given, to warn about.
    skipped: Vec<String>,
}

/// Check the options and the inputs `paths` (directories expanded, every file openable).
fn prepare_files(paths: Vec<PathBuf>, o: &Options) -> Result<Prepared, Failure> {
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
fn prepare_live(
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
fn counters(s: &Summary) -> Vec<(&'static str, u64)> {
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
fn run(p: Prepared, tx: SyncSender<Msg>, rows: usize, stop: Arc<AtomicBool>, events: bool) {
    let result = run_inner(p, &tx, rows, stop, events);
    // A reader gone has nothing to be told.
    let _ = tx.send(Msg::Done(result));
}

fn run_inner(
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
struct Running {
    rx: Option<Receiver<Msg>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Running {
    /// Start `p` on a thread of its own, batches of `rows` records.
    fn start(p: Prepared, rows: usize, events: bool) -> Result<Running, Failure> {
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
    fn next(&mut self, py: Python<'_>) -> PyResult<Option<Msg>> {
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
    fn end(&mut self, _py: Python<'_>) {
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
fn capsule<'py>(
    py: Python<'py>,
    schema: SchemaRef,
    batches: Vec<RecordBatch>,
) -> PyResult<Bound<'py, PyCapsule>> {
    let reader = RecordBatchIterator::new(batches.into_iter().map(Ok), schema);
    let stream = FFI_ArrowArrayStream::new(Box::new(reader));
    PyCapsule::new_with_value(py, stream, c"arrow_array_stream")
}

/// The options every run takes, as the Python wrapper passes them.
macro_rules! options {
    ($workers:expr, $classifiers:expr, $stats:expr, $rules:expr, $hosts:expr, $networks:expr,
     $signatures:expr, $patterns:expr, $model:expr, $model_bytes:expr, $no_model:expr,
     $t:expr, $max_flows:expr, $features:expr, $community_id:expr, $tunnels:expr) => {
        Options {
            workers: $workers,
            classifiers: $classifiers,
            stats: $stats,
            rules: $rules,
            hosts: $hosts,
            networks: $networks,
            signatures: $signatures,
            patterns: $patterns,
            model: $model,
            model_bytes: $model_bytes,
            no_model: $no_model,
            timeouts: $t,
            max_flows: $max_flows,
            features: $features,
            community_id: $community_id,
            tunnels: $tunnels,
        }
    };
}

/// The timeouts' options with their defaults: `live` takes the command line's `live` ones
/// (Tstat's), files a day of idle time and no active timeout.
fn timeouts(t: [Option<f64>; 5], live: bool) -> [(Option<f64>, &'static str, f64); 5] {
    const DAY: f64 = 86_400.0;
    let d = if live {
        [300.0, 120.0, 60.0, 10.0, 120.0]
    } else {
        [DAY, DAY, DAY, 10.0, f64::INFINITY]
    };
    [
        (t[0], "tcp_timeout", d[0]),
        (t[1], "udp_timeout", d[1]),
        (t[2], "other_timeout", d[2]),
        (t[3], "closed_timeout", d[3]),
        (t[4], "active_timeout", d[4]),
    ]
}

/// What `classify` returns: the records as an Arrow C stream, the warnings to raise as
/// (kind, message), the run's counters as (name, value).
type Classified<'py> = (
    Bound<'py, PyCapsule>,
    Vec<(&'static str, String)>,
    Vec<(&'static str, u64)>,
);

/// classify(paths, *, ...) -> (stream capsule, warnings, summary)
///
/// The native half of `wirespeed.classify` (use that): every record of the inputs `paths` as
/// an Arrow C stream (a PyCapsule named `arrow_array_stream`), the warnings to raise as
/// (kind, message), and the run's counters.
#[pyfunction]
#[pyo3(signature = (
    paths, *, workers=None, classifiers=String::from("all"), stats=Vec::new(), rules=None,
    hosts=None, networks=None, signatures=None, patterns=None, model=None, model_bytes=None,
    no_model=false, tcp_timeout=None, udp_timeout=None, other_timeout=None,
    closed_timeout=None, active_timeout=None, max_flows=1 << 20, features=false,
    community_id=false, tunnels=true
))]
#[allow(clippy::too_many_arguments)]
fn classify<'py>(
    py: Python<'py>,
    paths: Vec<PathBuf>,
    workers: Option<i64>,
    classifiers: String,
    stats: Vec<String>,
    rules: Option<PathBuf>,
    hosts: Option<PathBuf>,
    networks: Option<PathBuf>,
    signatures: Option<PathBuf>,
    patterns: Option<PathBuf>,
    model: Option<PathBuf>,
    model_bytes: Option<Vec<u8>>,
    no_model: bool,
    tcp_timeout: Option<f64>,
    udp_timeout: Option<f64>,
    other_timeout: Option<f64>,
    closed_timeout: Option<f64>,
    active_timeout: Option<f64>,
    max_flows: i64,
    features: bool,
    community_id: bool,
    tunnels: bool,
) -> PyResult<Classified<'py>> {
    let t = [
        tcp_timeout,
        udp_timeout,
        other_timeout,
        closed_timeout,
        active_timeout,
    ];
    let o = options!(
        workers,
        classifiers,
        stats,
        rules,
        hosts,
        networks,
        signatures,
        patterns,
        model,
        model_bytes,
        no_model,
        timeouts(t, false),
        max_flows,
        features,
        community_id,
        tunnels
    );
    let p = py.detach(|| prepare_files(paths, &o))?;
    let schema = wirespeed_export::arrow::schema(&p.cols);
    let mut run = Running::start(p, BATCH_ROWS, false)?;
    let (mut batches, mut warnings) = (Vec::new(), Vec::new());
    let done = loop {
        match run.next(py)? {
            Some(Msg::Batch(b)) => batches.push(b),
            Some(Msg::Warn(kind, m)) => warnings.push((kind, m)),
            Some(Msg::Opened) => {}
            Some(Msg::Done(r)) => break r?,
            None => return Err(PyRuntimeError::new_err("the run ended without a result")),
        }
    };
    Ok((capsule(py, schema, batches)?, warnings, done.summary))
}

/// What `events` returns: the events as JSON lines, the warnings, the counters.
type Evented<'py> = (
    Bound<'py, PyBytes>,
    Vec<(&'static str, String)>,
    Vec<(&'static str, u64)>,
);

/// events(paths, *, ...) -> (JSON lines, warnings, summary)
///
/// The native half of `wirespeed.events` (use that): the transaction events of the inputs as
/// JSON lines (docs/EVENTS.md), the warnings, and the run's counters.
#[pyfunction]
#[pyo3(signature = (
    paths, *, workers=None, classifiers=String::from("all"), rules=None, hosts=None,
    networks=None, signatures=None, tcp_timeout=None, udp_timeout=None, other_timeout=None,
    closed_timeout=None, max_flows=1 << 20, tunnels=true
))]
#[allow(clippy::too_many_arguments)]
fn events<'py>(
    py: Python<'py>,
    paths: Vec<PathBuf>,
    workers: Option<i64>,
    classifiers: String,
    rules: Option<PathBuf>,
    hosts: Option<PathBuf>,
    networks: Option<PathBuf>,
    signatures: Option<PathBuf>,
    tcp_timeout: Option<f64>,
    udp_timeout: Option<f64>,
    other_timeout: Option<f64>,
    closed_timeout: Option<f64>,
    max_flows: i64,
    tunnels: bool,
) -> PyResult<Evented<'py>> {
    let t = [
        tcp_timeout,
        udp_timeout,
        other_timeout,
        closed_timeout,
        None,
    ];
    let o = options!(
        workers,
        classifiers,
        Vec::new(),
        rules,
        hosts,
        networks,
        signatures,
        None,
        None,
        None,
        false,
        timeouts(t, false),
        max_flows,
        false,
        false,
        tunnels
    );
    let p = py.detach(|| prepare_files(paths, &o))?;
    let mut run = Running::start(p, BATCH_ROWS, true)?;
    let mut warnings = Vec::new();
    let done = loop {
        match run.next(py)? {
            Some(Msg::Warn(kind, m)) => warnings.push((kind, m)),
            Some(Msg::Batch(_)) | Some(Msg::Opened) => {}
            Some(Msg::Done(r)) => break r?,
            None => return Err(PyRuntimeError::new_err("the run ended without a result")),
        }
    };
    let lines = done.events.unwrap_or_default();
    Ok((PyBytes::new(py, &lines), warnings, done.summary))
}

/// A run's records, batch by batch, as its workers cut them (the native half of
/// `wirespeed.stream`'s iterator: use that).
#[pyclass(module = "wirespeed._wirespeed")]
struct Stream {
    /// The run; held by `next_item` while it waits (so `stop` and `close`, which may come
    /// from another thread meanwhile, go through `stop` instead).
    run: Mutex<Option<Running>>,
    /// The run's stop flag.
    stop: Arc<AtomicBool>,
    schema: SchemaRef,
    summary: Mutex<Option<Vec<(&'static str, u64)>>>,
}

#[pymethods]
impl Stream {
    /// The next item: `("batch", capsule)` (an Arrow C stream of one batch),
    /// `("warning", (kind, message))`, or None once the run is over (its counters are then
    /// in `summary()`). A failed run raises its error; Ctrl-C stops the run and raises
    /// `KeyboardInterrupt`.
    fn next_item<'py>(&self, py: Python<'py>) -> PyResult<Option<(&'static str, Py<PyAny>)>> {
        let mut slot = self
            .run
            .lock()
            .map_err(|_| PyRuntimeError::new_err("the stream is broken"))?;
        loop {
            let Some(run) = slot.as_mut() else {
                return Ok(None);
            };
            let m = match run.next(py) {
                Ok(m) => m,
                Err(e) => {
                    *slot = None;
                    return Err(e);
                }
            };
            match m {
                Some(Msg::Batch(b)) => {
                    let c = capsule(py, self.schema.clone(), vec![b])?;
                    return Ok(Some(("batch", c.into_any().unbind())));
                }
                Some(Msg::Warn(kind, m)) => {
                    let w = (kind, m).into_pyobject(py)?.into_any().unbind();
                    return Ok(Some(("warning", w)));
                }
                Some(Msg::Opened) => {}
                Some(Msg::Done(r)) => {
                    if let Some(mut run) = slot.take() {
                        run.end(py);
                    }
                    let done = r?;
                    if let Ok(mut s) = self.summary.lock() {
                        *s = Some(done.summary);
                    }
                    return Ok(None);
                }
                None => {
                    *slot = None;
                    return Err(PyRuntimeError::new_err("the run ended without a result"));
                }
            }
        }
    }

    /// An Arrow C stream of no batch, with the schema of every batch.
    fn schema<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyCapsule>> {
        capsule(py, self.schema.clone(), Vec::new())
    }

    /// The run's counters once it is over, else None.
    fn summary(&self) -> Option<Vec<(&'static str, u64)>> {
        self.summary.lock().ok().and_then(|s| s.clone())
    }

    /// Stop reading packets (a file at its next batch, a live capture at its next tick): the
    /// flows are ended and their records still come, then the end.
    fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    /// Stop the run; the records not yet read are dropped (when another thread is waiting on
    /// the stream, it gets the rest of them, then the end).
    fn close(&self, py: Python<'_>) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(mut run) = self.run.try_lock().ok().and_then(|mut s| s.take()) {
            run.end(py);
        }
    }
}

/// Start a stream from a prepared run; a live one returns once its sockets are open (or with
/// the error that kept them from opening).
fn start_stream(py: Python<'_>, p: Prepared, rows: i64) -> PyResult<Stream> {
    if !(1..=MAX_BATCH_ROWS).contains(&rows) {
        return Err(PyValueError::new_err(format!(
            "batch_rows must be between 1 and {MAX_BATCH_ROWS}, got {rows}"
        )));
    }
    let live = matches!(p.source, Source::Live(_));
    let schema = wirespeed_export::arrow::schema(&p.cols);
    let mut run = Running::start(p, rows as usize, false)?;
    let mut first = None;
    if live {
        match run.next(py)? {
            Some(Msg::Opened) => {}
            Some(Msg::Done(Err(f))) => return Err(f.into()),
            other => first = other,
        }
    }
    let stream = Stream {
        stop: run.stop.clone(),
        run: Mutex::new(Some(run)),
        schema,
        summary: Mutex::new(None),
    };
    if let Some(Msg::Done(Ok(done))) = first {
        // A live run that ended before it opened anything: nothing to read.
        *stream.summary.lock().unwrap_or_else(|e| e.into_inner()) = Some(done.summary);
    }
    Ok(stream)
}

/// stream_files(paths, *, batch_rows, ...) -> Stream
///
/// The native half of `wirespeed.stream` over capture files (use that).
#[pyfunction]
#[pyo3(signature = (
    paths, *, batch_rows=8192, workers=None, classifiers=String::from("all"), stats=Vec::new(),
    rules=None, hosts=None, networks=None, signatures=None, patterns=None, model=None,
    model_bytes=None, no_model=false, tcp_timeout=None, udp_timeout=None, other_timeout=None,
    closed_timeout=None, active_timeout=None, max_flows=1 << 20, features=false,
    community_id=false, tunnels=true
))]
#[allow(clippy::too_many_arguments)]
fn stream_files(
    py: Python<'_>,
    paths: Vec<PathBuf>,
    batch_rows: i64,
    workers: Option<i64>,
    classifiers: String,
    stats: Vec<String>,
    rules: Option<PathBuf>,
    hosts: Option<PathBuf>,
    networks: Option<PathBuf>,
    signatures: Option<PathBuf>,
    patterns: Option<PathBuf>,
    model: Option<PathBuf>,
    model_bytes: Option<Vec<u8>>,
    no_model: bool,
    tcp_timeout: Option<f64>,
    udp_timeout: Option<f64>,
    other_timeout: Option<f64>,
    closed_timeout: Option<f64>,
    active_timeout: Option<f64>,
    max_flows: i64,
    features: bool,
    community_id: bool,
    tunnels: bool,
) -> PyResult<Stream> {
    let t = [
        tcp_timeout,
        udp_timeout,
        other_timeout,
        closed_timeout,
        active_timeout,
    ];
    let o = options!(
        workers,
        classifiers,
        stats,
        rules,
        hosts,
        networks,
        signatures,
        patterns,
        model,
        model_bytes,
        no_model,
        timeouts(t, false),
        max_flows,
        features,
        community_id,
        tunnels
    );
    let p = py.detach(|| prepare_files(paths, &o))?;
    start_stream(py, p, batch_rows)
}

/// stream_live(interfaces, *, filter, duration, batch_rows, ...) -> Stream
///
/// The native half of `wirespeed.stream(interface=...)` (use that): returns once the capture
/// sockets are open.
#[pyfunction]
#[pyo3(signature = (
    interfaces, *, filter=None, duration=None, batch_rows=8192, workers=None,
    classifiers=String::from("all"), stats=Vec::new(), rules=None, hosts=None, networks=None,
    signatures=None, patterns=None, model=None, model_bytes=None, no_model=false,
    tcp_timeout=None, udp_timeout=None, other_timeout=None, closed_timeout=None,
    active_timeout=None, max_flows=1 << 20, features=false, community_id=false, tunnels=true
))]
#[allow(clippy::too_many_arguments)]
fn stream_live(
    py: Python<'_>,
    interfaces: Vec<String>,
    filter: Option<String>,
    duration: Option<f64>,
    batch_rows: i64,
    workers: Option<i64>,
    classifiers: String,
    stats: Vec<String>,
    rules: Option<PathBuf>,
    hosts: Option<PathBuf>,
    networks: Option<PathBuf>,
    signatures: Option<PathBuf>,
    patterns: Option<PathBuf>,
    model: Option<PathBuf>,
    model_bytes: Option<Vec<u8>>,
    no_model: bool,
    tcp_timeout: Option<f64>,
    udp_timeout: Option<f64>,
    other_timeout: Option<f64>,
    closed_timeout: Option<f64>,
    active_timeout: Option<f64>,
    max_flows: i64,
    features: bool,
    community_id: bool,
    tunnels: bool,
) -> PyResult<Stream> {
    let t = [
        tcp_timeout,
        udp_timeout,
        other_timeout,
        closed_timeout,
        active_timeout,
    ];
    let o = options!(
        workers,
        classifiers,
        stats,
        rules,
        hosts,
        networks,
        signatures,
        patterns,
        model,
        model_bytes,
        no_model,
        timeouts(t, true),
        max_flows,
        features,
        community_id,
        tunnels
    );
    let p = py.detach(|| prepare_live(interfaces, filter, duration, &o))?;
    start_stream(py, p, batch_rows)
}

/// What `train` returns: the model's bytes, the cross-validation report (empty without
/// folds), the classes, the counts as (name, value), the damaged captures.
type Trained<'py> = (
    Bound<'py, PyBytes>,
    String,
    Vec<String>,
    Vec<(&'static str, u64)>,
    Vec<String>,
);

/// train(paths, labels, *, ...) -> (model bytes, report, classes, counts, capture errors)
///
/// The native half of `wirespeed.train` (use that): `wirespeed train`'s run.
#[pyfunction]
#[pyo3(signature = (
    paths, labels, *, algo=String::from("nb"), size=String::from("payload"), packets=4,
    bin_width=32, alpha=0.0001, sigma=1.0, port=true, reject=0.0, iat=false, min_class=30,
    folds=5, seed=1
))]
#[allow(clippy::too_many_arguments)]
fn train<'py>(
    py: Python<'py>,
    paths: Vec<PathBuf>,
    labels: PathBuf,
    algo: String,
    size: String,
    packets: i64,
    bin_width: i64,
    alpha: f64,
    sigma: f64,
    port: bool,
    reject: f64,
    iat: bool,
    min_class: i64,
    folds: i64,
    seed: u64,
) -> PyResult<Trained<'py>> {
    use wirespeed_engine::train as t;
    let nb = match algo.as_str() {
        "nb" => true,
        "c45" => false,
        other => {
            return Err(PyValueError::new_err(format!(
                "algo must be \"nb\" (Naive Bayes) or \"c45\" (C4.5), got {other:?}"
            )))
        }
    };
    if !(0..=100).contains(&folds) || folds == 1 {
        return Err(PyValueError::new_err(format!(
            "folds must be 0 (no cross-validation) or between 2 and 100, got {folds}"
        )));
    }
    let neg = |v: i64| u64::try_from(v).unwrap_or(0);
    let params = t::TrainParams {
        nb,
        size,
        packets: neg(packets),
        bin_width: neg(bin_width),
        alpha,
        sigma,
        port,
        reject,
        iat,
        min_class: neg(min_class),
    };
    let o = params
        .opts()
        .map_err(|e| PyValueError::new_err(format!("{} {}", e.name, e.rule)))?;
    let work = move || -> Result<_, Failure> {
        let mut skipped = Vec::new();
        let files = wirespeed_capture::inputs::expand(&paths, &mut |s| skipped.push(s.to_string()))
            .map_err(Failure::Input)?;
        let text = String::from_utf8(read_capped(&labels, MAX_LABELS_FILE, "labels file")?)
            .map_err(|_| Failure::Value(format!("labels: {}: not UTF-8 text", labels.display())))?;
        let rows = t::read_labels(&text)
            .map_err(|e| Failure::Value(format!("labels: {}: {e}", labels.display())))?;
        let (samples, mut errors) = t::extract(&files, EngineConfig::default())
            .map_err(|e| Failure::Records(e.to_string()))?;
        errors.extend(skipped);
        let lab = t::label(&samples, &rows, o.min_class);
        if lab.classes.is_empty() {
            return Err(Failure::Value(format!(
                "min_class: no class has {} labelled flows ({} flows, {} labelled)",
                o.min_class,
                samples.len(),
                lab.cases.len()
            )));
        }
        let report = if folds > 1 {
            let cv = t::cross_validate(&samples, &lab, folds as usize, seed, &o);
            format!("{}", cv.report)
        } else {
            String::new()
        };
        let m = t::train(&lab.cases, &lab.classes, &o);
        let bytes = m.to_bytes();
        wirespeed_stats::Model::from_bytes(&bytes)
            .map_err(|e| Failure::Records(format!("the model does not read back: {e}")))?;
        let classes = lab
            .classes
            .iter()
            .map(|c| c.app.clone())
            .collect::<Vec<_>>();
        let counts = vec![
            ("captures", files.len() as u64),
            ("flows", samples.len() as u64),
            ("labelled", lab.cases.len() as u64),
        ];
        Ok((bytes, report, classes, counts, errors))
    };
    let (bytes, report, classes, counts, errors) = py.detach(work)?;
    Ok((PyBytes::new(py, &bytes), report, classes, counts, errors))
}

/// inputs(paths) -> (files, skipped)
///
/// The capture files a run over `paths` reads, in order (directories walked and sorted, files
/// that are not captures left out and named in `skipped`), as `wirespeed.inputs` says.
#[pyfunction]
fn inputs(py: Python<'_>, paths: Vec<PathBuf>) -> PyResult<(Vec<PathBuf>, Vec<String>)> {
    py.detach(|| {
        let mut skipped = Vec::new();
        let files = wirespeed_capture::inputs::expand(&paths, &mut |s| skipped.push(s.to_string()))
            .map_err(Failure::Input)?;
        Ok::<_, Failure>((files, skipped))
    })
    .map_err(PyErr::from)
}

/// The names of the classifiers, in the order they run (`wirespeed list classifiers`).
#[pyfunction]
fn classifier_names() -> Vec<&'static str> {
    wirespeed_classify::AVAILABLE.iter().map(|a| a.0).collect()
}

/// The native module `wirespeed._wirespeed`.
#[pymodule]
fn _wirespeed(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(classify, m)?)?;
    m.add_function(wrap_pyfunction!(events, m)?)?;
    m.add_function(wrap_pyfunction!(stream_files, m)?)?;
    m.add_function(wrap_pyfunction!(stream_live, m)?)?;
    m.add_function(wrap_pyfunction!(train, m)?)?;
    m.add_function(wrap_pyfunction!(inputs, m)?)?;
    m.add_function(wrap_pyfunction!(classifier_names, m)?)?;
    m.add_class::<Stream>()?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
