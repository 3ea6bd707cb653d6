//! The options of a run: checked, each error naming its option ([`Failure`]), read into the
//! engine's configuration; option files read with a cap.

use pyo3::exceptions::{PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;
use wirespeed_classify::ClassifierSet;
use wirespeed_engine::{EngineConfig, ModelSource, ParallelConfig, RuleSources, Rules, RulesError};
use wirespeed_export::Columns;
use wirespeed_flow::{FlowConfig, Timeouts};
use wirespeed_wire::DecodeConfig;

/// Records per Arrow record batch of `classify` (and chunk of the table's columns), per worker.
pub(crate) const BATCH_ROWS: usize = 65_536;

/// Most records a batch of a [`Stream`] may be asked to hold.
pub(crate) const MAX_BATCH_ROWS: i64 = 1 << 20;

/// Batches waiting in the channel between the engine and the Python thread: with the batch
/// size, what bounds a run's memory beyond its flow tables.
pub(crate) const CHANNEL_BATCHES: usize = 4;

/// How often a wait on the engine looks at Python's signal flag (Ctrl-C).
pub(crate) const SIGNAL_POLL: Duration = Duration::from_millis(100);

/// Most records a flow table may hold (as the command line's `--max-flows`).
pub(crate) const MAX_FLOWS: i64 = 1 << 28;

/// Largest option file read, by what it is (as the command line's limits).
pub(crate) const MAX_SIGNATURE_FILE: u64 = 4 << 20;
pub(crate) const MAX_PATTERN_FILE: u64 = 16 << 20;
pub(crate) const MAX_LIST_FILE: u64 = 64 << 20;
pub(crate) const MAX_MODEL_FILE: u64 = 64 << 20;
pub(crate) const MAX_LABELS_FILE: u64 = 64 << 20;

/// Why a run did not give a table.
pub(crate) enum Failure {
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
pub(crate) struct Options {
    pub(crate) workers: Option<i64>,
    pub(crate) classifiers: String,
    pub(crate) stats: Vec<String>,
    pub(crate) rules: Option<PathBuf>,
    pub(crate) hosts: Option<PathBuf>,
    pub(crate) networks: Option<PathBuf>,
    pub(crate) signatures: Option<PathBuf>,
    pub(crate) patterns: Option<PathBuf>,
    pub(crate) model: Option<PathBuf>,
    /// A model given as bytes (a `wirespeed.train` result), instead of a file.
    pub(crate) model_bytes: Option<Vec<u8>>,
    pub(crate) no_model: bool,
    pub(crate) timeouts: [(Option<f64>, &'static str, f64); 5],
    pub(crate) max_flows: i64,
    pub(crate) features: bool,
    pub(crate) community_id: bool,
    pub(crate) tunnels: bool,
    /// Only these columns (`columns=`, as `--columns`); None: every one.
    pub(crate) columns: Option<Vec<String>>,
    /// Payload-inspection contexts a worker (`dpi_contexts=`, as `--dpi-contexts`).
    pub(crate) dpi_contexts: i64,
    /// Milliseconds after which a full pool gives a flow's undecided context to a new flow
    /// (`dpi_reclaim_after=`, as `--dpi-reclaim-after`; 0: never).
    pub(crate) dpi_reclaim_after: i64,
    /// The statistical model learns from the link (`learn_stats=`, as `--learn-stats`).
    pub(crate) learn_stats: bool,
}

/// The bytes of the option file `p`, refused past `cap` bytes (a FIFO or `/dev/zero` given by
/// mistake must not fill memory).
pub(crate) fn read_capped(p: &Path, cap: u64, what: &str) -> Result<Vec<u8>, Failure> {
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
pub(crate) fn load_rules(o: &Options) -> Result<Rules, Failure> {
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
pub(crate) fn secs(s: f64, option: &str) -> Result<u64, Failure> {
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
pub(crate) fn stats_families(stats: &[String]) -> Result<(bool, bool, bool), Failure> {
    wirespeed_engine::stats_families(stats.iter().map(String::as_str)).map_err(|other| {
        Failure::Value(format!(
            "stats: {other:?} is not a family; the families are: dist, tcp, entropy"
        ))
    })
}

/// The engine's configuration and the columns of its records; `live`: for a live link (the
/// sweep writes the interims of quiet flows, as the command line's `live`).
pub(crate) fn config(
    o: &Options,
    live: bool,
) -> Result<(EngineConfig, ParallelConfig, Columns), Failure> {
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
    // About 1 KiB each, allocated as flows need them (as the command line's bound).
    const MAX_DPI_CONTEXTS: i64 = 1 << 24;
    if !(1..=MAX_DPI_CONTEXTS).contains(&o.dpi_contexts) {
        return Err(Failure::Value(format!(
            "dpi_contexts must be between 1 and {MAX_DPI_CONTEXTS} (about 1 KiB of memory each), \
             got {}",
            o.dpi_contexts
        )));
    }
    if o.dpi_reclaim_after < 0 {
        return Err(Failure::Value(format!(
            "dpi_reclaim_after must be 0 (never) or a number of milliseconds, got {}",
            o.dpi_reclaim_after
        )));
    }
    let rules = load_rules(o)?;
    let mut cfg = EngineConfig {
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
    cfg.dpi.contexts = o.dpi_contexts as usize;
    cfg.dpi.reclaim_ns = (o.dpi_reclaim_after as u64).saturating_mul(1_000_000);
    if o.learn_stats {
        // The command line's default weight of a link flow against the shipped prior.
        cfg.learn.stats_weight = wirespeed_engine::learn::LearnConfig::LINK_WEIGHT;
        cfg.check_learn_stats()
            .map_err(|e| Failure::Value(format!("learn_stats: {e}")))?;
    }
    let cols = Columns {
        with_source: true,
        features: o.features,
        community: o.community_id,
        dist,
        tcp,
        ..Columns::default()
    };
    let cols = keep_columns(o.columns.as_deref(), cols)?;
    cfg.compute_for(&cols);
    Ok((cfg, ParallelConfig { workers, ..par }, cols))
}

/// `columns=`: `cols` keeping only those (the record's order whatever the order named). A name
/// that is no column, or a column of a group not asked for, is a ValueError naming it.
fn keep_columns(names: Option<&[String]>, cols: Columns) -> Result<Columns, Failure> {
    let Some(names) = names else {
        return Ok(cols);
    };
    let valid = cols.names();
    if names.is_empty() {
        return Err(Failure::Value(format!(
            "columns: name at least one column; the record's columns are: {}",
            valid.join(", ")
        )));
    }
    for n in names {
        if !valid.contains(&n.as_str()) {
            let why = if wirespeed_export::Keep::known(n) {
                "is not a column with these options (features, community_id, stats add some)"
            } else {
                "is no column"
            };
            return Err(Failure::Value(format!(
                "columns: {n:?} {why}; the record's columns are: {}",
                valid.join(", ")
            )));
        }
    }
    let keep = wirespeed_export::Keep::of(names.iter().map(String::as_str))
        .map_err(|n| Failure::Value(format!("columns: {n:?} is no column")))?;
    if valid.iter().all(|n| keep.has(n)) {
        return Ok(cols);
    }
    Ok(Columns {
        keep: Some(keep),
        ..cols
    })
}

/// Refuse flow tables larger than the memory available (the allocation would abort the
/// interpreter): said with the figures, as the command line does.
pub(crate) fn fits_in_memory(cfg: &EngineConfig, workers: usize) -> Result<(), Failure> {
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

/// The timeouts' options with their defaults: `live` takes the command line's `live` ones
/// (Tstat's), files a day of idle time and no active timeout.
pub(crate) fn timeouts(t: [Option<f64>; 5], live: bool) -> [(Option<f64>, &'static str, f64); 5] {
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

/// The options every run takes, as the Python wrapper passes them.
macro_rules! options {
    ($workers:expr, $classifiers:expr, $stats:expr, $rules:expr, $hosts:expr, $networks:expr,
     $signatures:expr, $patterns:expr, $model:expr, $model_bytes:expr, $no_model:expr,
     $t:expr, $max_flows:expr, $features:expr, $community_id:expr, $tunnels:expr,
     $columns:expr) => {
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
            columns: $columns,
            dpi_contexts: 1 << 16,
            dpi_reclaim_after: 1000,
            learn_stats: false,
        }
    };
}
