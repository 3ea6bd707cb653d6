//! `wirespeed._wirespeed`: the native half of the `wirespeed` Python package.
//!
//! `classify` runs a [`Session`] (the runtime facade the command line's `classify` runs) over
//! capture files, every worker's records going into Arrow record batches
//! ([`wirespeed_export::arrow::BatchSink`]: the Parquet output's columns and types), and hands
//! the batches to pyarrow through the Arrow C stream interface (a PyCapsule named
//! `arrow_array_stream`: no copy of the columns). The engine runs with the GIL released.
//!
//! The pure-Python half (`python/wirespeed/__init__.py`) checks the options' types, turns the
//! stream into a `pyarrow.Table` and the warnings returned here into `warnings.warn`. Values are
//! checked here, each error naming its option: `ValueError`; inputs or option files that cannot
//! be read: `OSError` naming the path.

use arrow_array::ffi_stream::FFI_ArrowArrayStream;
use arrow_array::{RecordBatch, RecordBatchIterator};
use pyo3::exceptions::{PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyCapsule;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use wirespeed_capture::CaptureErrorKind;
use wirespeed_classify::ClassifierSet;
use wirespeed_engine::{EngineConfig, ModelSource, ParallelConfig, RuleSources, Rules, RulesError};
use wirespeed_engine::{Session, Summary};
use wirespeed_export::arrow::BatchSink;
use wirespeed_export::Columns;
use wirespeed_flow::{FlowConfig, Timeouts};
use wirespeed_wire::DecodeConfig;

/// Records per Arrow record batch (and chunk of the table's columns), per worker.
const BATCH_ROWS: usize = 65_536;

/// Most records a flow table may hold (as the command line's `--max-flows`).
const MAX_FLOWS: i64 = 1 << 28;

/// Largest option file read, by what it is (as the command line's limits).
const MAX_SIGNATURE_FILE: u64 = 4 << 20;
const MAX_PATTERN_FILE: u64 = 16 << 20;
const MAX_LIST_FILE: u64 = 64 << 20;
const MAX_MODEL_FILE: u64 = 64 << 20;

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
    /// A Python exception raised while the run waited for the GIL (Ctrl-C).
    Py(PyErr),
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
            Failure::Py(e) => e,
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
    no_model: bool,
    timeouts: [(Option<f64>, &'static str, f64); 5],
    max_flows: i64,
    features: bool,
    community_id: bool,
    tunnels: bool,
}

/// What a run gives back: the batches, their schema, and what to warn about.
struct Outcome {
    batches: Vec<RecordBatch>,
    schema: arrow_schema::SchemaRef,
    /// (kind, message): `capture` for a damaged input, `skipped` for a file of a directory
    /// that is not a capture.
    warnings: Vec<(&'static str, String)>,
    summary: Summary,
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
        model: match (&o.model, o.no_model) {
            (Some(p), _) => ModelSource::Bytes(read_capped(p, MAX_MODEL_FILE, "model")?),
            (None, true) => ModelSource::None,
            (None, false) => ModelSource::Builtin,
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
    let (mut dist, mut tcp, mut entropy) = (false, false, false);
    for f in stats {
        match f.trim() {
            "dist" => dist = true,
            "tcp" => tcp = true,
            "entropy" => entropy = true,
            "" | "none" => {}
            other => {
                return Err(Failure::Value(format!(
                    "stats: {other:?} is not a family; the families are: dist, tcp, entropy"
                )))
            }
        }
    }
    Ok((dist, tcp, entropy))
}

/// The engine's configuration and the columns of its records.
fn config(o: &Options) -> Result<(EngineConfig, ParallelConfig, Columns), Failure> {
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

/// The run, without the GIL: expand the inputs, check the options, run every input through
/// one session, collect the workers' batches.
fn run(paths: Vec<PathBuf>, o: Options) -> Result<Outcome, Failure> {
    let mut warnings = Vec::new();
    let files = wirespeed_capture::inputs::expand(&paths, &mut |s| {
        warnings.push(("skipped", s.to_string()))
    })
    .map_err(Failure::Input)?;
    let (cfg, par, cols) = config(&o)?;
    fits_in_memory(&cfg, par.workers)?;
    // Every input can be opened: a missing or unreadable one is an error before anything runs.
    for p in &files {
        if p.as_os_str() != "-" {
            std::fs::File::open(p).map_err(|error| Failure::Os {
                path: p.clone(),
                error,
                what: String::new(),
            })?;
        }
    }
    let mut session = Session::new(cfg, par, |_| BatchSink::new(cols, BATCH_ROWS), true);
    let mut not_captures = Vec::new();
    for path in &files {
        let outcome = session
            .run_file(path, &mut |_, _| {})
            .map_err(|e| Failure::Records(format!("writing records: {e}")))?;
        match &outcome.error {
            Some(e)
                if matches!(
                    e.kind,
                    CaptureErrorKind::Empty | CaptureErrorKind::UnknownFormat
                ) =>
            {
                not_captures.push(e.to_string())
            }
            Some(e) => warnings.push(("capture", e.to_string())),
            None => {}
        }
        // Ctrl-C between inputs: Python's handler has only set a flag; ask for it.
        Python::attach(|py| py.check_signals()).map_err(Failure::Py)?;
    }
    let (summary, sinks) = session
        .finish()
        .map_err(|e| Failure::Records(format!("writing records: {e}")))?;
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
    let schema = wirespeed_export::arrow::schema(&cols);
    let batches = sinks.into_iter().flat_map(|mut s| s.take()).collect();
    Ok(Outcome {
        batches,
        schema,
        warnings,
        summary,
    })
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
/// (kind, message), and the run's counters as a dict.
#[pyfunction]
#[pyo3(signature = (
    paths, *, workers=None, classifiers=String::from("all"), stats=Vec::new(), rules=None,
    hosts=None, networks=None, signatures=None, patterns=None, model=None, no_model=false,
    tcp_timeout=None, udp_timeout=None, other_timeout=None, closed_timeout=None,
    active_timeout=None, max_flows=1 << 20, features=false, community_id=false, tunnels=true
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
    // The command line's defaults for files: a day of idle time, no active timeout.
    const DAY: f64 = 86_400.0;
    let o = Options {
        workers,
        classifiers,
        stats,
        rules,
        hosts,
        networks,
        signatures,
        patterns,
        model,
        no_model,
        timeouts: [
            (tcp_timeout, "tcp_timeout", DAY),
            (udp_timeout, "udp_timeout", DAY),
            (other_timeout, "other_timeout", DAY),
            (closed_timeout, "closed_timeout", 10.0),
            (active_timeout, "active_timeout", f64::INFINITY),
        ],
        max_flows,
        features,
        community_id,
        tunnels,
    };
    let out = py.detach(move || run(paths, o))?;
    let c = &out.summary.counters;
    let summary = vec![
        ("packets", c.packets),
        ("bytes", c.bytes),
        ("records", c.records),
        ("capture_errors", c.capture_errors),
        ("inputs", out.summary.files.len() as u64),
    ];
    let reader = RecordBatchIterator::new(out.batches.into_iter().map(Ok), out.schema);
    let stream = FFI_ArrowArrayStream::new(Box::new(reader));
    // The capsule owns the stream: pyarrow moves it out (its release set to null), and a
    // stream never imported is released when the capsule is collected.
    let capsule = PyCapsule::new_with_value(py, stream, c"arrow_array_stream")?;
    Ok((capsule, out.warnings, summary))
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
    m.add_function(wrap_pyfunction!(classifier_names, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
