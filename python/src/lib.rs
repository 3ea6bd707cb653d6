//! `wirespeed._wirespeed`: the native half of the `wirespeed` Python package.
//!
//! Every run is a [`Session`](wirespeed_engine::Session) (the runtime facade the command line's `classify` runs) or a live
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

use arrow_schema::SchemaRef;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyCapsule};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use wirespeed_engine::EngineConfig;

#[macro_use]
mod options;
mod order;
mod run;

use options::*;
use run::*;

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
    community_id=false, tunnels=true, columns=None, dpi_contexts=1 << 16, dpi_reclaim_after=1000,
    learn_stats=false
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
    columns: Option<Vec<String>>,
    dpi_contexts: i64,
    dpi_reclaim_after: i64,
    learn_stats: bool,
) -> PyResult<Classified<'py>> {
    let t = [
        tcp_timeout,
        udp_timeout,
        other_timeout,
        closed_timeout,
        active_timeout,
    ];
    let mut o = options!(
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
        tunnels,
        columns
    );
    o.dpi_contexts = dpi_contexts;
    o.dpi_reclaim_after = dpi_reclaim_after;
    o.learn_stats = learn_stats;
    let p = py.detach(|| prepare_files(paths, &o))?;
    let schema = wirespeed_export::arrow::schema(&p.cols);
    let mut run = Running::start(p, BATCH_ROWS, false)?;
    let (mut batches, mut warnings) = (Vec::new(), Vec::new());
    let done = loop {
        match run.next(py)? {
            Some(Msg::Batch(b, ids)) => batches.push((b, ids)),
            Some(Msg::Warn(kind, m)) => warnings.push((kind, m)),
            Some(Msg::Opened) => {}
            Some(Msg::Done(r)) => break r?,
            None => return Err(PyRuntimeError::new_err("the run ended without a result")),
        }
    };
    let batches = py
        .detach(|| order::in_flow_order(batches, BATCH_ROWS))
        .map_err(|e| PyRuntimeError::new_err(format!("arrow: putting rows in order: {e}")))?;
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
        tunnels,
        None
    );
    let p = py.detach(|| prepare_files(paths, &o))?;
    let mut run = Running::start(p, BATCH_ROWS, true)?;
    let mut warnings = Vec::new();
    let done = loop {
        match run.next(py)? {
            Some(Msg::Warn(kind, m)) => warnings.push((kind, m)),
            Some(Msg::Batch(..)) | Some(Msg::Opened) => {}
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
                Some(Msg::Batch(b, _)) => {
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
    community_id=false, tunnels=true, columns=None, dpi_contexts=1 << 16, dpi_reclaim_after=1000,
    learn_stats=false
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
    columns: Option<Vec<String>>,
    dpi_contexts: i64,
    dpi_reclaim_after: i64,
    learn_stats: bool,
) -> PyResult<Stream> {
    let t = [
        tcp_timeout,
        udp_timeout,
        other_timeout,
        closed_timeout,
        active_timeout,
    ];
    let mut o = options!(
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
        tunnels,
        columns
    );
    o.dpi_contexts = dpi_contexts;
    o.dpi_reclaim_after = dpi_reclaim_after;
    o.learn_stats = learn_stats;
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
    active_timeout=None, max_flows=1 << 20, features=false, community_id=false, tunnels=true, columns=None, dpi_contexts=1 << 16, dpi_reclaim_after=1000,
    learn_stats=false
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
    columns: Option<Vec<String>>,
    dpi_contexts: i64,
    dpi_reclaim_after: i64,
    learn_stats: bool,
) -> PyResult<Stream> {
    let t = [
        tcp_timeout,
        udp_timeout,
        other_timeout,
        closed_timeout,
        active_timeout,
    ];
    let mut o = options!(
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
        tunnels,
        columns
    );
    o.dpi_contexts = dpi_contexts;
    o.dpi_reclaim_after = dpi_reclaim_after;
    o.learn_stats = learn_stats;
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
    paths, labels, *, algo=String::from("nb"), size=String::from("data"), packets=4,
    bin_width=32, alpha=0.0001, sigma=1.0, port=true, reject=0.0, iat=false, min_class=30,
    folds=5, seed=1, max_repeats=10
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
    max_repeats: i64,
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
    if max_repeats < 0 {
        return Err(PyValueError::new_err(format!(
            "max_repeats must be 0 (learn every flow) or more, got {max_repeats}"
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
        max_repeats: neg(max_repeats),
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
