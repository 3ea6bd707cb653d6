//! What the shared arguments make: the engine's configuration ([`EngineArgs::config`], with
//! the rules of [`RuleArgs::rules`] and, for a live run, the `--events` output the command owns),
//! the workers' ([`ParallelArgs::config`]), the memory check ([`fits_in_memory`]), the stop
//! flag of SIGINT and SIGTERM.

use crate::args::{EngineArgs, ParallelArgs, RuleArgs, TunnelMode};
use crate::outputs::{stdout_path, EventsOut, OutFile, LIVE_GRACE};
use std::fs::File;
use std::io::{self, Write};
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use wirespeed_classify::ClassifierSet;
use wirespeed_engine::events::EventsConfig;
use wirespeed_engine::{EngineConfig, ModelSource, ParallelConfig, RuleSources, Rules, RulesError};
use wirespeed_export::shared::{LossyWriter, SharedWriter};
use wirespeed_flow::{FlowConfig, Timeouts};
use wirespeed_wire::DecodeConfig;

/// The run's rules, shared, and never freed: one reference is leaked, so the last of the
/// run's own references (the session's, dropped in `Session::finish`) does not free the
/// tables. A command builds its rules once and exits soon after the run, when the system takes
/// the memory back whole; freeing the ~5,000 labels, host rules and the model's table one by
/// one first cost 2.1 M instructions, a tenth of a one-flow run (issue 37 item 3). Only the
/// binary does this: the library (and the Python binding) frees its rules as usual.
fn kept_to_exit(rules: Rules) -> Arc<Rules> {
    let rules = Arc::new(rules);
    std::mem::forget(Arc::clone(&rules));
    rules
}

impl RuleArgs {
    /// The run's rules: the built-in ones with the files named on the command line. Errors
    /// name the file (and, from the parsers, its line).
    pub(crate) fn rules(&self) -> Result<Rules, String> {
        let text = |p: &Path, cap: u64, what: &str| {
            String::from_utf8(read_capped(p, cap, what)?)
                .map_err(|_| format!("{}: the {what} is not UTF-8 text", p.display()))
        };
        let src = RuleSources {
            signatures: self
                .signatures
                .as_deref()
                .map(|p| text(p, MAX_SIGNATURE_FILE, "signature file"))
                .transpose()?,
            patterns: self
                .match_file
                .as_deref()
                .map(|p| text(p, MAX_PATTERN_FILE, "pattern file"))
                .transpose()?,
            model: match &self.model {
                Some(p) => ModelSource::Bytes(read_capped(p, MAX_MODEL_FILE, "model")?),
                None => ModelSource::Builtin,
            },
            protos: self
                .rules
                .as_deref()
                .map(|p| text(p, MAX_LIST_FILE, "rules file"))
                .transpose()?,
            hosts: self
                .hosts
                .as_deref()
                .map(|p| text(p, MAX_LIST_FILE, "host-name list"))
                .transpose()?,
            networks: self
                .networks
                .as_deref()
                .map(|p| text(p, MAX_LIST_FILE, "address-owner list"))
                .transpose()?,
        };
        Rules::load(&src).map_err(|e| {
            let file = match &e {
                RulesError::Signatures(_) => self.signatures.as_deref(),
                RulesError::Patterns(_) => self.match_file.as_deref(),
                RulesError::Model(_) => self.model.as_deref(),
                RulesError::Networks(_) => self.networks.as_deref(),
                RulesError::Hosts(_) => self.hosts.as_deref(),
                RulesError::Protos(_) => self.rules.as_deref(),
                RulesError::Labels(_) => None,
            };
            match file {
                Some(p) => format!("{}: {e}", p.display()),
                None => e.to_string(),
            }
        })
    }
}

/// Idle timeouts (TCP, UDP, other) and active timeout of a capture file's run, seconds.
const FILE_TIMEOUTS: [f64; 4] = [86400.0, 86400.0, 86400.0, f64::INFINITY];

/// The same on a live link (`live`, `inline`): Tstat's, as a live link has no end of file to end
/// its flows.
const LIVE_TIMEOUTS: [f64; 4] = [300.0, 120.0, 60.0, 120.0];

impl EngineArgs {
    /// The configuration of a run over capture files (`classify`, `bench`).
    pub(crate) fn config(&self) -> Result<EngineConfig, String> {
        // A file's run writes `--events` under a lock: nothing to close.
        let (cfg, _events) = self.config_with(FILE_TIMEOUTS, false)?;
        Ok(cfg)
    }

    /// The configuration of a run on a live link (`live`, `inline`), and its `--events` output,
    /// which the command closes once the run is over ([`EventsOut::close`]).
    pub(crate) fn live_config(&self) -> Result<(EngineConfig, EventsOut), String> {
        self.config_with(LIVE_TIMEOUTS, true)
    }

    /// The configuration with these default idle timeouts (TCP, UDP, other) and active
    /// timeout, in seconds; `live`: a run that must never wait on its outputs.
    fn config_with(
        &self,
        default_timeouts: [f64; 4],
        live: bool,
    ) -> Result<(EngineConfig, EventsOut), String> {
        let rules = self.files.rules()?;
        let secs = |s: f64, what: &str| {
            if s > 0.0 {
                // `inf`, and anything past u64's nanoseconds (~584 years), never runs out.
                Ok(if s * 1e9 >= u64::MAX as f64 {
                    Timeouts::NEVER
                } else {
                    (s * 1e9) as u64
                })
            } else {
                Err(format!(
                    "--{what} must be a positive number of seconds, or inf"
                ))
            }
        };
        // Memory is reserved for the whole table at start (a 192-byte slot and 16 bytes of index
        // a flow, `flow_slot_stays_within_budget` in the engine): refuse sizes that
        // would take the machine down rather than fail later.
        const MAX_FLOWS: usize = 1 << 28;
        if self.max_flows == 0 || self.max_flows > MAX_FLOWS {
            return Err(format!(
                "--max-flows must be between 1 and {MAX_FLOWS} (about 210 bytes of memory a flow)"
            ));
        }
        // A context is about 1 KiB (`Ctx` in the dpi crate), allocated only as flows need it.
        const MAX_DPI_CONTEXTS: usize = 1 << 24;
        if self.dpi_contexts == 0 || self.dpi_contexts > MAX_DPI_CONTEXTS {
            return Err(format!(
                "--dpi-contexts must be between 1 and {MAX_DPI_CONTEXTS} (about 1 KiB of memory each)"
            ));
        }
        if self.batch == 0 || self.batch > 4096 {
            return Err("--batch must be between 1 and 4096".into());
        }
        // Learned tables are memory bounded by these: refuse what could not be held.
        const MAX_LEARNED: usize = 1 << 24;
        if self.host_cache_capacity > MAX_LEARNED || self.dns_cache_capacity > MAX_LEARNED {
            return Err(format!(
                "--host-cache-capacity and --dns-cache-capacity must be at most {MAX_LEARNED}"
            ));
        }
        let learn = wirespeed_engine::learn::LearnConfig {
            epoch_ns: secs(self.learn_epoch, "learn-epoch")?,
            dns: wirespeed_classify::dnscache::DnsCacheConfig {
                capacity: self.dns_cache_capacity,
                ..Default::default()
            },
            hosts: wirespeed_classify::hostcache::HostCacheConfig {
                capacity: self.host_cache_capacity,
                window_ns: secs(self.host_cache_window, "host-cache-window")?,
                uth: self.host_cache_uth.max(1),
                ttl_ns: secs(self.host_cache_ttl, "host-cache-ttl")?,
                ..Default::default()
            },
            stats_weight: if self.learn_stats {
                if self.learn_stats_weight == 0 || self.learn_stats_weight > 1 << 16 {
                    return Err("--learn-stats-weight must be between 1 and 65536".into());
                }
                self.learn_stats_weight
            } else {
                0
            },
            ..Default::default()
        };
        if self.host_cache_uth == 0 {
            return Err("--host-cache-uth must be at least 1 (a rule needs a flow)".into());
        }
        if live && self.tunnel_mode() == TunnelMode::Both {
            return Err(
                "--tunnels both is for capture files (classify): a live link's fanout may part \
                 a tunnel from the flows it carries"
                    .into(),
            );
        }
        let (dist, tcp, entropy) = self.stats_families()?;
        let mut cfg = EngineConfig {
            learn,
            flow: FlowConfig {
                capacity: self.max_flows,
                timeouts: Timeouts {
                    tcp_ns: secs(
                        self.tcp_timeout.unwrap_or(default_timeouts[0]),
                        "tcp-timeout",
                    )?,
                    udp_ns: secs(
                        self.udp_timeout.unwrap_or(default_timeouts[1]),
                        "udp-timeout",
                    )?,
                    other_ns: secs(
                        self.other_timeout.unwrap_or(default_timeouts[2]),
                        "other-timeout",
                    )?,
                    closed_ns: secs(self.closed_timeout, "closed-timeout")?,
                    active_ns: secs(
                        self.active_timeout.unwrap_or(default_timeouts[3]),
                        "active-timeout",
                    )?,
                },
                // A live link's quiet flows get interims from the sweep too (a crash loses at most
                // an active timeout); a file's only at their packets, the same for any workers.
                sweep_interims: live,
                ..FlowConfig::default()
            },
            decode: DecodeConfig {
                decode_tunnels: self.tunnel_mode() != TunnelMode::Outer,
            },
            outer_flows: self.tunnel_mode() == TunnelMode::Both,
            classifiers: ClassifierSet::parse(&self.classifiers).map_err(|e| e.to_string())?,
            batch_size: self.batch,
            dpi: wirespeed_dpi::DpiConfig {
                contexts: self.dpi_contexts,
                reclaim_ns: self.dpi_reclaim_after.saturating_mul(1_000_000),
                ..wirespeed_dpi::DpiConfig::default()
            },
            dist,
            tcp,
            entropy,
            dispatch_seed: self.dispatch_seed,
            ..EngineConfig::with_rules(kept_to_exit(rules))
        };
        cfg.check_learn_stats()
            .map_err(|e| format!("--learn-stats: {e}"))?;
        // Last: no file is created for a run refused above.
        let (events, events_out) = self.events_out(live)?;
        cfg.events = events;
        Ok((cfg, events_out))
    }

    /// `--events FILE`: the workers' transaction events through one output (docs/EVENTS.md),
    /// whole lines at a time. A file (or `-`) shared under a lock, as `classify`'s records; for
    /// a live run, as its records, a bounded queue to a writer thread that drops and counts
    /// what a stalled output cannot take, returned to be closed by the command once the run is
    /// over ([`EventsOut::close`]).
    fn events_out(&self, live: bool) -> Result<(Option<EventsConfig>, EventsOut), String> {
        let Some(path) = &self.events else {
            return Ok((None, EventsOut::default()));
        };
        let out: Box<dyn Write + Send> = match stdout_path(Some(path)) {
            Some(p) => Box::new(OutFile::create(p).map_err(|e| format!("--events: {e}"))?),
            None => Box::new(io::stdout()),
        };
        Ok(if live {
            let (w, writer) = LossyWriter::new(out, Arc::default(), LIVE_GRACE);
            let events_out = EventsOut(Some((w.clone(), writer)));
            (
                Some(EventsConfig::new(move || Box::new(w.clone()))),
                events_out,
            )
        } else {
            let w = SharedWriter::new(out);
            (
                Some(EventsConfig::new(move || Box::new(w.clone()))),
                EventsOut::default(),
            )
        })
    }
}

/// Refuse a run whose flow tables (`--max-flows`, over `workers`, with the `--stats` side
/// tables) need more memory than this machine, or its cgroup, has available: said with the
/// figures before anything is allocated, instead of an abort in the allocator.
pub(crate) fn fits_in_memory(
    cfg: &EngineConfig,
    workers: usize,
    max_flows: usize,
) -> Result<(), String> {
    let need = wirespeed_engine::reserved_bytes(cfg, workers);
    match wirespeed_engine::memory_available() {
        Some(avail) if need > avail => Err(format!(
            "--max-flows {max_flows}: the flow tables of {workers} worker{} need {:.1} GiB, more \
             than the {:.1} GiB of memory available; lower --max-flows (about 210 bytes a flow)",
            if workers == 1 { "" } else { "s" },
            need as f64 / (1u64 << 30) as f64,
            avail as f64 / (1u64 << 30) as f64
        )),
        _ => Ok(()),
    }
}

/// Largest `--signatures` file read (signatures are at most 64 bytes: ten thousand of them
/// take well under this).
const MAX_SIGNATURE_FILE: u64 = 4 << 20;
/// Largest `--match` file read: at most 1 MiB of pattern bytes compile (crates/dpi's
/// matcher), written as `\xNN` at most 4 characters a byte.
const MAX_PATTERN_FILE: u64 = 4 << 20;
/// Largest `--networks`, `--hosts` or `--rules` file read (the built-in lists are 0.8 MB and
/// 45 KB).
const MAX_LIST_FILE: u64 = 64 << 20;
/// Largest `--model` file read (the shipped models are kilobytes).
const MAX_MODEL_FILE: u64 = 64 << 20;

/// How long an option file that is not a regular file (a FIFO, `<(command)`, a device) may
/// take to reach its end before the run is refused: a FIFO nobody writes to must not hang the
/// run without a word.
const OPTION_PIPE_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

/// The bytes of `p`, refused past `cap` (a FIFO or `/dev/zero` given by mistake must not fill
/// memory); errors name the file, what it is for, and the cap. A file that is not a regular one
/// is read on a thread of its own and given up after [`OPTION_PIPE_WAIT`] with a message
/// (the thread, blocked in the kernel, ends with the process).
pub(crate) fn read_capped(p: &Path, cap: u64, what: &str) -> Result<Vec<u8>, String> {
    let meta =
        std::fs::metadata(p).map_err(|e| format!("cannot read {what} {}: {e}", p.display()))?;
    if meta.is_dir() {
        return Err(format!("{}: the {what} is a directory", p.display()));
    }
    if meta.is_file() {
        return read_capped_now(p, cap, what);
    }
    let (tx, rx) = std::sync::mpsc::channel();
    let (path, what_owned) = (p.to_path_buf(), what.to_string());
    std::thread::spawn(move || {
        let _ = tx.send(read_capped_now(&path, cap, &what_owned));
    });
    rx.recv_timeout(OPTION_PIPE_WAIT).unwrap_or_else(|_| {
        Err(format!(
            "{}: the {what} is not a regular file and reached no end in {} s (a FIFO with \
             no writer?)",
            p.display(),
            OPTION_PIPE_WAIT.as_secs()
        ))
    })
}

/// [`read_capped`]'s read, blocking.
fn read_capped_now(p: &Path, cap: u64, what: &str) -> Result<Vec<u8>, String> {
    use std::io::Read;
    let f = File::open(p).map_err(|e| format!("cannot read {what} {}: {e}", p.display()))?;
    let mut b = Vec::new();
    f.take(cap + 1)
        .read_to_end(&mut b)
        .map_err(|e| format!("cannot read {what} {}: {e}", p.display()))?;
    if b.len() as u64 > cap {
        return Err(format!(
            "{}: the {what} is larger than {} MiB, the most read",
            p.display(),
            cap >> 20
        ));
    }
    Ok(b)
}

impl ParallelArgs {
    /// [`ParallelArgs::config`] for a run with these engine options: `--tunnels both` runs one
    /// worker, and refuses more. A tunnel may carry one inner flow between several outer
    /// end-points (Teredo's relays, 6in6 through several routers): no dispatch by headers can
    /// keep that flow and all its outer flows in one worker, and records must not depend on the
    /// number of workers.
    pub(crate) fn config_for(&self, engine: &EngineArgs) -> Result<ParallelConfig, String> {
        let mut par = self.config()?;
        if engine.tunnel_mode() == TunnelMode::Both {
            if self.workers.is_some_and(|w| w > 1) {
                return Err(
                    "--tunnels both runs one worker (--workers 1): an inner flow may \
                     ride tunnels between several outer end-points, which no dispatch can keep \
                     in one worker"
                        .into(),
                );
            }
            par.workers = 1;
        }
        Ok(par)
    }

    pub(crate) fn config(&self) -> Result<ParallelConfig, String> {
        let d = ParallelConfig::default();
        let workers = self.workers.unwrap_or(d.workers);
        if workers == 0 || workers > 128 {
            return Err("--workers must be between 1 and 128".into());
        }
        if self.buffer_mb == 0 || self.buffer_mb > 1 << 20 {
            return Err("--buffer-mb must be between 1 and 1048576".into());
        }
        Ok(ParallelConfig {
            workers,
            pin: self.pin,
            buffer_mb: self.buffer_mb,
            reader_thread: self.reader_thread,
        })
    }
}

/// A flag that SIGINT and SIGTERM set.
pub(crate) fn stop_flag() -> Result<Arc<AtomicBool>, String> {
    let stop = Arc::new(AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register(sig, stop.clone()).map_err(|e| format!("signals: {e}"))?;
    }
    Ok(stop)
}

/// A duration option (`--status`, `--duration`): a non-negative number of seconds.
pub(crate) fn duration_arg(s: f64, what: &str) -> Result<std::time::Duration, String> {
    if s.is_finite() && s >= 0.0 {
        Ok(std::time::Duration::from_secs_f64(s))
    } else {
        Err(format!("--{what} must be a number of seconds"))
    }
}
