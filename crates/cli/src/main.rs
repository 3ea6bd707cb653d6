//! `wirespeed`: classify every flow of capture files, generate synthetic traces, benchmark.

use clap::{Args, Parser, Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use std::fs::File;
use std::io::{self, BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;
use wirespeed_classify::ClassifierSet;
use wirespeed_engine::{
    gen, DispatchStats, EngineConfig, ModelSource, ParallelConfig, RuleSources, Rules, RulesError,
    Session, Summary,
};
use wirespeed_export::ipfix::{Exporter, IpfixSink};
use wirespeed_export::shared::{LossyWriter, SharedWriter};
use wirespeed_export::{Columns, CsvWriter, JsonLinesWriter, RecordSink, Tee};
use wirespeed_flow::{FlowConfig, Timeouts};
use wirespeed_live::metrics::{MetricsServer, OutputCounters, RunStats};
use wirespeed_wire::DecodeConfig;

/// Standard error could not be written (`2>/dev/full`, a closed descriptor): the run goes on
/// (its records are what matter) and exits 2 at the end, instead of the panic of std's
/// `eprintln!` (exit 101). One flag for the process, as standard error is one for the process.
static STDERR_FAILED: AtomicBool = AtomicBool::new(false);

/// `eprintln!` that never panics: a failed write sets [`STDERR_FAILED`]. It shadows std's in
/// this crate (every module is declared below it).
macro_rules! eprintln {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        if writeln!(std::io::stderr(), $($t)*).is_err() {
            $crate::STDERR_FAILED.store(true, std::sync::atomic::Ordering::Relaxed);
        }
    }};
}

/// `eprint!` that never panics, as [`eprintln!`] here.
macro_rules! eprint {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        if write!(std::io::stderr(), $($t)*).is_err() {
            $crate::STDERR_FAILED.store(true, std::sync::atomic::Ordering::Relaxed);
        }
    }};
}

mod guard;
mod kafka_out;
mod parquet_out;
mod train;

#[derive(Parser)]
#[command(
    name = "wirespeed",
    version,
    about = "Tell, for every flow on a link, which application it belongs to"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Classify the flows of pcap/pcapng files and write one record per flow.
    Classify(ClassifyArgs),
    /// Write a synthetic capture: the worst case of seed 000, or a small realistic demo.
    Gen(GenArgs),
    /// Measure packets per second and peak memory on the worst-case trace (or given files).
    Bench(BenchArgs),
    /// Train a statistical model from captures and labels (nDPI's flows.csv shape), with a
    /// cross-validation report split by capture file.
    Train(train::TrainArgs),
    /// Classify the flows of live interfaces (AF_PACKET rings; Linux, needs CAP_NET_RAW).
    Live(LiveArgs),
    /// Send the packets of a capture file out of an interface.
    Replay(ReplayArgs),
    /// Act on the label inline: packets from NFQUEUE are forwarded, dropped, marked (DSCP) or
    /// rate-limited by a policy of rules (docs/INLINE.md; Linux, needs CAP_NET_ADMIN).
    Inline(InlineArgs),
    /// Print what the classifiers know: `apps` (every application, its category and the
    /// protocols it is named over, operator files included), `protocols` (every protocol, how
    /// it is recognised, its usual ports) or `classifiers`.
    List(ListArgs),
}

#[derive(Args)]
struct LiveArgs {
    /// Interfaces, comma-separated.
    #[arg(short, long, required = true, value_delimiter = ',')]
    interface: Vec<String>,
    /// Filter in tcpdump syntax (compiled by tcpdump -ddd, run by the kernel).
    #[arg(long)]
    filter: Option<String>,
    /// Switch to this user once the capture sockets are open.
    #[arg(long)]
    user: Option<String>,
    /// Seconds between status lines on standard error (0: none).
    #[arg(long, default_value_t = 1.0)]
    status: f64,
    /// Stop after this many seconds (default: at SIGINT or SIGTERM).
    #[arg(long)]
    duration: Option<f64>,
    /// Record format (Parquet files are written by `classify` alone).
    #[arg(long, value_enum, default_value = "json")]
    format: TextFormat,
    /// Write records here instead of standard output (`-`: standard output).
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Add the early-flow features to every record (`splt_*`, `atoz_*`; docs/SCHEMA.md).
    #[arg(long)]
    features: bool,
    /// Add each flow's Community ID (`community_id`, v1, seed 0), as `classify` does.
    #[arg(long)]
    community_id: bool,
    /// No run summary on standard error.
    #[arg(short, long)]
    quiet: bool,
    /// Also the engine's internals in the summary (fragments, payload inspection, reassembly
    /// caps, how the work was spread over the workers).
    #[arg(short, long, conflicts_with = "quiet")]
    verbose: bool,
    /// Serve the run's counters to Prometheus (OpenMetrics text) at http://ADDR:PORT/metrics,
    /// e.g. 127.0.0.1:9477 (docs/METRICS.md).
    #[arg(long, value_name = "ADDR:PORT")]
    metrics: Option<std::net::SocketAddr>,
    /// Also export the records as IPFIX (`udp://HOST:PORT`, `tcp://HOST:PORT`, `file:PATH`; see
    /// `classify --help`). A collector that is down or slow costs records (counted), never
    /// capture. With it, JSON or CSV records are written only where `-o` sends them.
    #[arg(long, value_name = "TARGET")]
    ipfix: Option<String>,
    /// Also send every record to a Kafka topic (`BROKERS/TOPIC`; see `classify --help`). A
    /// broker that is down or slow costs records (counted), never capture. With it, JSON or CSV
    /// records are written only where `-o` sends them. Needs the cargo feature `kafka`.
    #[arg(long, value_name = "BROKERS/TOPIC")]
    kafka: Option<String>,
    #[command(flatten)]
    engine: EngineArgs,
    #[command(flatten)]
    par: ParallelArgs,
}

#[derive(Args)]
struct InlineArgs {
    /// NFQUEUE queue number, or a range `A:B` (one worker per queue; the kernel's
    /// `--queue-balance` spreads connections over them).
    #[arg(long, required_unless_present = "check")]
    queue: Option<String>,
    /// The policy (TOML, docs/INLINE.md). Reloaded on SIGHUP; counters and flows are kept.
    #[arg(long)]
    policy: PathBuf,
    /// Keep every packet in user space: do not hand flows whose action is final to the kernel
    /// (by default a final forward, drop or mark is left in the connection's mark, and the
    /// rules of `--print-rules` act on it).
    #[arg(long)]
    no_bypass: bool,
    /// Print the firewall rules for this queue and policy (iptables-legacy and
    /// ip6tables-legacy) and exit.
    #[arg(long)]
    print_rules: bool,
    /// Chain the rules go into (`FORWARD` for a router or bridge, `INPUT`/`OUTPUT` for a host).
    #[arg(long, default_value = "FORWARD")]
    chain: String,
    /// Read and compile the policy, print its rules, and exit.
    #[arg(long)]
    check: bool,
    /// Packets the kernel holds per queue before it lets new ones through unseen (fail open).
    #[arg(long, default_value_t = 4096)]
    queue_len: u32,
    /// Seconds between status lines on standard error (0: none).
    #[arg(long, default_value_t = 1.0)]
    status: f64,
    /// Stop after this many seconds (default: at SIGINT or SIGTERM).
    #[arg(long)]
    duration: Option<f64>,
    /// Record format (Parquet files are written by `classify` alone).
    #[arg(long, value_enum, default_value = "json")]
    format: TextFormat,
    /// Write records here instead of standard output (`-`: standard output).
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// No run summary on standard error.
    #[arg(short, long)]
    quiet: bool,
    /// Pin worker i to core i mod cores.
    #[arg(long)]
    pin: bool,
    /// Serve the run's counters to Prometheus (OpenMetrics text) at http://ADDR:PORT/metrics,
    /// e.g. 127.0.0.1:9477 (docs/METRICS.md).
    #[arg(long, value_name = "ADDR:PORT")]
    metrics: Option<std::net::SocketAddr>,
    /// Also export the records as IPFIX, as `live --ipfix` does.
    #[arg(long, value_name = "TARGET")]
    ipfix: Option<String>,
    /// Also send every record to a Kafka topic, as `live --kafka` does.
    #[arg(long, value_name = "BROKERS/TOPIC")]
    kafka: Option<String>,
    #[command(flatten)]
    engine: EngineArgs,
}

#[derive(Args, Clone)]
struct PaceArgs {
    /// Packets per second (default: as fast as the interface takes them).
    #[arg(long, conflicts_with_all = ["mbps", "timing"])]
    pps: Option<f64>,
    /// Megabits per second of frame bytes.
    #[arg(long, conflicts_with = "timing")]
    mbps: Option<f64>,
    /// `original`: keep the gaps between the capture's timestamps.
    #[arg(long, value_parser = ["original"])]
    timing: Option<String>,
}

impl PaceArgs {
    fn pace(&self) -> Result<wirespeed_live::Pace, String> {
        use wirespeed_live::Pace;
        let pos = |v: f64, what: &str| {
            if v.is_finite() && v > 0.0 {
                Ok(v)
            } else {
                Err(format!("--{what} must be a positive number"))
            }
        };
        Ok(match (self.pps, self.mbps, &self.timing) {
            (Some(p), _, _) => Pace::Pps(pos(p, "pps")?),
            (_, Some(m), _) => Pace::Mbps(pos(m, "mbps")?),
            (_, _, Some(_)) => Pace::Original,
            _ => Pace::Top,
        })
    }
}

#[derive(Args)]
struct ListArgs {
    /// What to list.
    #[arg(value_enum)]
    what: ListWhat,
    #[command(flatten)]
    files: RuleArgs,
}

#[derive(Clone, Copy, ValueEnum)]
enum ListWhat {
    /// Applications: name, category, the masters it is named over (tab-separated).
    Apps,
    /// Classifiers (`--classifiers` names) and what each does.
    Classifiers,
    /// Protocols: name, category, how they are recognised (payload, port), their usual ports
    /// (tab-separated).
    Protocols,
}

#[derive(Args)]
struct ReplayArgs {
    /// Interface to send on.
    #[arg(short, long)]
    interface: String,
    /// Capture file (Ethernet frames are sent; others are counted and skipped).
    file: PathBuf,
    /// Send the file this many times; 0: until SIGINT or SIGTERM.
    #[arg(long = "loop", default_value_t = 1)]
    loops: u64,
    #[command(flatten)]
    pace: PaceArgs,
}

/// The formats a live or inline run writes: records as they end, to a stream.
#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
enum TextFormat {
    /// One JSON object per line.
    Json,
    /// CSV with a header line.
    Csv,
}

impl From<TextFormat> for Format {
    fn from(f: TextFormat) -> Format {
        match f {
            TextFormat::Json => Format::Json,
            TextFormat::Csv => Format::Csv,
        }
    }
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
enum Format {
    /// One JSON object per line.
    Json,
    /// CSV with a header line.
    Csv,
    /// Parquet, typed columns (`classify -o FILE` only; built with the cargo feature
    /// `parquet`).
    Parquet,
}

/// `--tunnels`: which flows tunnelled packets count in.
#[derive(Clone, Copy, ValueEnum, PartialEq, Eq, Debug)]
enum TunnelMode {
    /// The flow the tunnel carries (the default).
    Inner,
    /// The tunnel's own flow, keyed by the outermost headers.
    Outer,
    /// Both: outer flows as `outer` gives them, inner flows as `inner` gives them, and in each
    /// inner flow's record its outer flow's id (`tunnel_parent`).
    Both,
}

/// The files that add to or replace what the classifiers know.
#[derive(Args, Clone)]
struct RuleArgs {
    /// Statistical model file for the `stats` classifier (default: the model built in).
    #[arg(long)]
    model: Option<PathBuf>,
    /// More byte signatures for payload inspection, in the format of crates/dpi/signatures.txt;
    /// they are tried after the built-in ones.
    #[arg(long, value_name = "FILE")]
    signatures: Option<PathBuf>,
    /// Payload search: a file of patterns, one a line (`#` comments, `\xNN` escapes; see
    /// docs/SCHEMA.md, field `matches`), looked for in the packets inspected by `dpi`.
    #[arg(long = "match", value_name = "FILE")]
    match_file: Option<PathBuf>,
    /// Operator rules in nDPI's protos.txt syntax: `host:"pattern"@Name`, `ip:CIDR@Name`,
    /// `ipv6:[CIDR]@Name`, `tcp:PORT[-PORT],...@Name`, `udp:...@Name` (docs/SCHEMA.md).
    #[arg(long, value_name = "FILE")]
    rules: Option<PathBuf>,
    /// More host-name rules (`pattern,app,category,breed` rows, as data/app_hosts.csv), loaded
    /// after the built-in list; a pattern already there takes the new service.
    #[arg(long, value_name = "FILE")]
    hosts: Option<PathBuf>,
    /// More address owners (`network,app,category` rows, as data/app_networks.csv), loaded after
    /// the built-in list; a block equal to a built-in one takes the new owner.
    #[arg(long, value_name = "FILE")]
    networks: Option<PathBuf>,
}

#[derive(Args, Clone)]
struct EngineArgs {
    /// Classifiers to run, in any order, comma-separated: port, ip, dpt, dns-cache,
    /// host-cache, stats, dpi, "all" or "none" (`wirespeed list classifiers`).
    #[arg(long, default_value = "all")]
    classifiers: String,
    /// Flow statistics families to add to every record, comma-separated: `dist` (packet size
    /// and inter-arrival min/mean/max/std and TCP flag counts per direction), `tcp`
    /// (retransmissions, out-of-order and duplicate segments, RTT, SYN options, Zeek's history
    /// and conn_state; docs/SCHEMA.md), `entropy` (the payload entropy nDPI's Susp Entropy risk
    /// reads: up to four payloads a flow are measured; without it no flow gets that risk).
    #[arg(long, value_delimiter = ',')]
    stats: Vec<String>,
    /// Flow table capacity (flows held at once; memory is reserved for this many).
    #[arg(long, default_value_t = 1 << 20)]
    max_flows: usize,
    /// Seed of the run's secret hash keys (which worker takes each flow, the fragment tables'
    /// sets), for reproducible tests: by default they are drawn afresh each run, so that
    /// nobody can aim packets at one worker. Records never depend on it.
    #[arg(long, value_name = "N")]
    dispatch_seed: Option<u64>,
    /// TCP idle timeout, seconds of capture time, or `inf` for none (files: a day by default, one
    /// flow per 5-tuple for a typical capture, as nDPI counts; live: 300, Tstat's choice).
    #[arg(long)]
    tcp_timeout: Option<f64>,
    /// UDP idle timeout, seconds or `inf` (files: a day; live: 120).
    #[arg(long)]
    udp_timeout: Option<f64>,
    /// Idle timeout of other transports (ICMP, SCTP, ...), seconds or `inf` (files: a day; live: 60).
    #[arg(long)]
    other_timeout: Option<f64>,
    /// How long a TCP flow closed by FIN or RST lingers for trailing packets, seconds.
    #[arg(long, default_value_t = 10.0)]
    closed_timeout: f64,
    /// Active timeout, seconds or `inf`: a flow open this long gets an interim record
    /// (`end_reason` `active`, counters cumulative since the flow's start, the same `flow_id` as
    /// its final record), and another each time as much more passes, at its next packet (live:
    /// a quiet flow's at the sweep too), so a crash loses at most this much of a long flow
    /// (files: inf; live: 120, NetFlow's and Tstat's convention; docs/SCHEMA.md).
    #[arg(long)]
    active_timeout: Option<f64>,
    /// Which flows tunnelled packets (GRE, VXLAN, Geneve, GTP-U, CAPWAP, Teredo, AYIYA,
    /// IP-in-IP) count in: `inner`, the flow the tunnel carries; `outer`, the tunnel's own
    /// (outermost headers); `both`, each in both, the inner flow's record naming its outer
    /// flow's id in `tunnel_parent` (as Zeek's conn.log; `classify` only).
    #[arg(long, value_enum, default_value = "inner", value_name = "MODE")]
    tunnels: TunnelMode,
    /// `--tunnels outer` (the older spelling).
    #[arg(long, hide = true, conflicts_with = "tunnels")]
    no_tunnels: bool,
    /// Packets per batch.
    #[arg(long, default_value_t = 128)]
    batch: usize,
    #[command(flatten)]
    files: RuleArgs,
    /// Host Cache (seed 002): the utility U = x·p (flows of the end-point's majority label in a
    /// window) an end-point needs to become a rule.
    #[arg(long, default_value_t = 10, value_name = "U")]
    host_cache_uth: u32,
    /// Host Cache: length of a measurement window, seconds of capture time.
    #[arg(long, default_value_t = 30.0, value_name = "S")]
    host_cache_window: f64,
    /// Host Cache: most rules held (H); the top H by utility stay.
    #[arg(long, default_value_t = 2048, value_name = "H")]
    host_cache_capacity: usize,
    /// Host Cache: a rule lives this long from its admission, seconds, however well it does.
    #[arg(long, default_value_t = 3600.0, value_name = "S")]
    host_cache_ttl: f64,
    /// DNS-learned addresses: most held (the address answered longest ago goes first).
    #[arg(long, default_value_t = 1 << 16, value_name = "N")]
    dns_cache_capacity: usize,
    /// What flows teach (DNS answers, payload verdicts) is shared with every worker at most
    /// this often, seconds of capture time: a flow starting in one such epoch is named by what
    /// flows taught before it began, with 1 worker as with many.
    #[arg(long, default_value_t = 1.0, value_name = "S")]
    learn_epoch: f64,
    /// Also write one JSON line per DNS query/answer, HTTP request/response and TLS handshake
    /// to FILE (`-`: standard output), each with its flow's `flow_id` (docs/EVENTS.md).
    #[arg(long, value_name = "FILE")]
    events: Option<PathBuf>,
}

impl RuleArgs {
    /// The files these options read (rules, lists, model, signatures, patterns).
    fn inputs(&self) -> Vec<&Path> {
        [
            &self.signatures,
            &self.match_file,
            &self.model,
            &self.rules,
            &self.hosts,
            &self.networks,
        ]
        .into_iter()
        .filter_map(|p| p.as_deref())
        .collect()
    }

    /// The run's rules: the built-in ones with the files named on the command line. Errors
    /// name the file (and, from the parsers, its line).
    fn rules(&self) -> Result<Rules, String> {
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

impl EngineArgs {
    /// The files these options read (rules, lists, model, signatures, patterns).
    fn inputs(&self) -> Vec<&Path> {
        self.files.inputs()
    }

    /// The outputs these options write, with the option that names each.
    fn outputs(&self) -> Vec<(&'static str, &Path)> {
        self.events
            .as_deref()
            .map(|p| ("--events", p))
            .into_iter()
            .collect()
    }

    fn config(&self) -> Result<EngineConfig, String> {
        self.config_with([86400.0, 86400.0, 86400.0, f64::INFINITY], false)
    }

    /// The configuration with these default idle timeouts (TCP, UDP, other) and active
    /// timeout, in seconds; `live`: a run that must never wait on its outputs.
    fn config_with(&self, default_timeouts: [f64; 4], live: bool) -> Result<EngineConfig, String> {
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
        Ok(EngineConfig {
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
            dist,
            tcp,
            entropy,
            events: self.events_out(live)?,
            dispatch_seed: self.dispatch_seed,
            ..EngineConfig::with_rules(Arc::new(rules))
        })
    }

    /// `--events FILE`: the workers' transaction events through one output (docs/EVENTS.md),
    /// whole lines at a time. A file (or `-`) shared under a lock, as `classify`'s records; for
    /// a live run, as its records, a bounded queue to a writer thread that drops and counts
    /// what a stalled output cannot take, closed by [`close_events`] once the run is over.
    fn events_out(
        &self,
        live: bool,
    ) -> Result<Option<wirespeed_engine::events::EventsConfig>, String> {
        use wirespeed_engine::events::EventsConfig;
        let Some(path) = &self.events else {
            return Ok(None);
        };
        let out: Box<dyn Write + Send> = match stdout_path(Some(path)) {
            Some(p) => Box::new(OutFile::create(p).map_err(|e| format!("--events: {e}"))?),
            None => Box::new(io::stdout()),
        };
        Ok(Some(if live {
            let (w, writer) = LossyWriter::new(out, Arc::default(), LIVE_GRACE);
            if let Ok(mut slot) = EVENTS_WRITER.lock() {
                *slot = Some((w.clone(), writer));
            }
            EventsConfig::new(move || Box::new(w.clone()))
        } else {
            let w = SharedWriter::new(out);
            EventsConfig::new(move || Box::new(w.clone()))
        }))
    }

    /// `--tunnels`, with `--no-tunnels` its older spelling of `outer`.
    fn tunnel_mode(&self) -> TunnelMode {
        if self.no_tunnels {
            TunnelMode::Outer
        } else {
            self.tunnels
        }
    }

    /// The columns of the statistics families `--stats` asks for and of `--tunnels both`, and
    /// no others.
    fn stats_columns(&self) -> Result<Columns, String> {
        // Entropy adds no column: it decides a risk.
        let (dist, tcp, _) = self.stats_families()?;
        Ok(Columns {
            dist,
            tcp,
            tunnel_parent: self.tunnel_mode() == TunnelMode::Both,
            ..Columns::default()
        })
    }

    /// `--stats` families: (distributions, TCP analysis, payload entropy for Susp Entropy).
    fn stats_families(&self) -> Result<(bool, bool, bool), String> {
        let (mut dist, mut tcp, mut entropy) = (false, false, false);
        for f in &self.stats {
            match f.trim() {
                "dist" => dist = true,
                "tcp" => tcp = true,
                "entropy" => entropy = true,
                "" | "none" => {}
                other => {
                    return Err(format!(
                        "--stats {other:?}: the families are: dist, tcp, entropy"
                    ))
                }
            }
        }
        Ok((dist, tcp, entropy))
    }
}

/// Refuse a run whose flow tables (`--max-flows`, over `workers`, with the `--stats` side
/// tables) need more memory than this machine, or its cgroup, has available: said with the
/// figures before anything is allocated, instead of an abort in the allocator.
fn fits_in_memory(cfg: &EngineConfig, workers: usize, max_flows: usize) -> Result<(), String> {
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
fn read_capped(p: &Path, cap: u64, what: &str) -> Result<Vec<u8>, String> {
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

#[derive(Args, Clone)]
struct ParallelArgs {
    /// Worker threads, each with its own flow table; flows are spread by a symmetric hash.
    /// 1 runs today's single-thread pipeline with no reader thread. Default: the number of cores.
    #[arg(long)]
    workers: Option<usize>,
    /// Pin worker i to core i mod cores.
    #[arg(long)]
    pin: bool,
    /// Buffer between the reader and the workers, MiB (counted as 2 KiB packet slots).
    #[arg(long, default_value_t = 64)]
    buffer_mb: usize,
    /// Capture files: feed the workers from a reader thread through the buffer, as live
    /// capture does, instead of the workers taking turns scanning the file (the default).
    #[arg(long)]
    reader_thread: bool,
}

impl ParallelArgs {
    /// [`ParallelArgs::config`] for a run with these engine options: `--tunnels both` runs one
    /// worker, and refuses more. A tunnel may carry one inner flow between several outer
    /// end-points (Teredo's relays, 6in6 through several routers): no dispatch by headers can
    /// keep that flow and all its outer flows in one worker, and records must not depend on the
    /// number of workers.
    fn config_for(&self, engine: &EngineArgs) -> Result<ParallelConfig, String> {
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

    fn config(&self) -> Result<ParallelConfig, String> {
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

#[derive(Args)]
struct ClassifyArgs {
    /// Capture files (pcap or pcapng); a directory stands for the files in it.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Record format.
    #[arg(long, value_enum, default_value = "json")]
    format: Format,
    /// Write records here instead of standard output (`-`: standard output).
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Accepted for older scripts: every record now has `source` and `pcap`, whatever the
    /// number of inputs (the columns depend on options only).
    #[arg(long, hide = true)]
    with_source: bool,
    /// No run summary on standard error.
    #[arg(short, long)]
    quiet: bool,
    /// Also the engine's internals in the summary (fragments, payload inspection, reassembly
    /// caps, how the work was spread over the workers).
    #[arg(short, long, conflicts_with = "quiet")]
    verbose: bool,
    /// No progress bar (it is shown only when standard error is a terminal anyway).
    #[arg(long)]
    no_progress: bool,
    /// Add the early-flow features to every record (`splt_*`, `atoz_*`; docs/SCHEMA.md).
    #[arg(long)]
    features: bool,
    /// Add each flow's Community ID (`community_id`, v1, seed 0: the flow hash Zeek and
    /// Suricata write, so records join their logs).
    #[arg(long)]
    community_id: bool,
    /// Also export the records as IPFIX: `udp://HOST:PORT`, `tcp://HOST:PORT` or `file:PATH`,
    /// with options after `?` (`domain=`, `mtu=`, `refresh=` seconds, `rate=` records a second;
    /// docs/IPFIX.md). With it, JSON or CSV records are written only where `-o` sends them.
    #[arg(long, value_name = "TARGET")]
    ipfix: Option<String>,
    /// Also send every record to a Kafka topic: `BROKERS/TOPIC` (brokers comma-separated,
    /// e.g. `127.0.0.1:9092/flows`), options after `?` (`key=`, `flush=`, `connect=` seconds,
    /// librdkafka properties; docs/KAFKA.md), one JSON record per message. A full producer
    /// queue waits: nothing is lost. With it, JSON or CSV records are written only where `-o`
    /// sends them. Needs a build with the cargo feature `kafka`.
    #[arg(long, value_name = "BROKERS/TOPIC")]
    kafka: Option<String>,
    /// `--format parquet`: records per row group; each worker holds up to this many in memory
    /// (about 0.65 KB each, 1.6 KB with every optional group of columns) before it writes them.
    #[arg(long, value_name = "ROWS", default_value_t = 65_536)]
    parquet_row_group: usize,
    /// JSON and CSV: write the records in a fixed order, by `flow_id` (the order the flows
    /// began in), so that two runs give the same bytes whatever the number of workers. Every
    /// record is held in memory until the end of the run. Without it, with several workers,
    /// each writes its flows as it ends them and the order changes from run to run.
    #[arg(long)]
    ordered: bool,
    #[command(flatten)]
    engine: EngineArgs,
    #[command(flatten)]
    par: ParallelArgs,
}

#[derive(Clone, Copy, ValueEnum)]
enum Trace {
    /// Seed 000's worst case: 64-byte frames, P packets per flow, W flows interleaved.
    WorstCase,
    /// A small realistic mix of applications and encapsulations.
    Demo,
}

#[derive(Args)]
struct GenArgs {
    /// Which trace.
    #[arg(value_enum)]
    trace: Trace,
    /// Output pcap file (`-`: standard output).
    #[arg(short, long, required_unless_present = "to")]
    output: Option<PathBuf>,
    /// Instead of a file, send the trace out of this interface, over and over until SIGINT or
    /// SIGTERM (the trace is built in memory first: about 380 bytes a flow).
    #[arg(long, conflicts_with = "output")]
    to: Option<String>,
    #[command(flatten)]
    pace: PaceArgs,
    /// Worst case: number of flows.
    #[arg(long, default_value_t = 1_000_000)]
    flows: u32,
    /// Worst case: packets per flow.
    #[arg(long, default_value_t = 5)]
    pkts: u32,
    /// Worst case: flows interleaved at once.
    #[arg(long, default_value_t = 65_536)]
    window: u32,
}

#[derive(Args)]
struct BenchArgs {
    /// Capture files to replay; without any, the worst-case trace is generated into a temp file.
    files: Vec<PathBuf>,
    /// Replay the inputs this many times (flows start afresh each time).
    #[arg(long, default_value_t = 1)]
    repeat: u32,
    /// Worst case: number of flows.
    #[arg(long, default_value_t = 1_000_000)]
    flows: u32,
    /// Write records to this file (the default discards them after formatting as JSON).
    #[arg(short, long)]
    output: Option<PathBuf>,
    #[command(flatten)]
    engine: EngineArgs,
    #[command(flatten)]
    par: ParallelArgs,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let r = match cli.cmd {
        Cmd::Classify(a) => classify(a),
        Cmd::Gen(a) => gen_cmd(a),
        Cmd::Bench(a) => bench(a),
        Cmd::Train(a) => train::train_cmd(a),
        Cmd::Live(a) => live(a),
        Cmd::Inline(a) => inline(a),
        Cmd::Replay(a) => replay(a),
        Cmd::List(a) => list(a),
    };
    let r = close_events().and(r);
    let code = match r {
        Ok(code) => code,
        Err(e) => {
            eprintln!("wirespeed: error: {e}");
            ExitCode::from(EXIT_USAGE)
        }
    };
    if STDERR_FAILED.load(Ordering::Relaxed) {
        ExitCode::from(EXIT_USAGE)
    } else {
        code
    }
}

/// Exit status of a run that went wrong in part: an input damaged after some good packets (they
/// were all processed), or records an exporter lost. README's table of exit codes.
const EXIT_PARTIAL: u8 = 1;
/// Exit status of a run refused or failed: a bad option, an input missing or not a capture at
/// all, an output that cannot be written, standard error that cannot be written.
const EXIT_USAGE: u8 = 2;

/// A live run's `--events` output ([`EngineArgs::events_out`]), closed by [`close_events`].
static EVENTS_WRITER: std::sync::Mutex<Option<LiveOut>> = std::sync::Mutex::new(None);

/// Close a live run's `--events` output once the run is over (its workers, and their handles
/// to it, are gone): what it holds is written, a stalled output abandoned after the grace
/// period; events dropped because it did not keep up are reported.
fn close_events() -> Result<ExitCode, String> {
    let taken = EVENTS_WRITER.lock().ok().and_then(|mut s| s.take());
    if let Some((lossy, writer)) = taken {
        let c = close_live_out(lossy, writer);
        if c.lost > 0 {
            eprintln!(
                "wirespeed: --events: {} events lost because the output did not keep up",
                c.lost
            );
        }
        if let Some(e) = c.write_error {
            return Err(format!("--events: {e}"));
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `-o -`: standard output, as most tools read it.
fn stdout_path(path: Option<&Path>) -> Option<&Path> {
    path.filter(|p| p.as_os_str() != "-")
}

fn open_out(path: Option<&Path>) -> io::Result<Box<dyn Write>> {
    Ok(match stdout_path(path) {
        Some(p) => Box::new(OutFile::create(p)?),
        None => Box::new(io::stdout().lock()),
    })
}

/// An output file whose errors name it (`-o /proc/version`: "…/proc/version: Input/output
/// error", not the error alone). The error's kind is kept.
struct OutFile {
    path: PathBuf,
    file: File,
}

impl OutFile {
    fn create(p: &Path) -> io::Result<OutFile> {
        let file = File::create(p)
            .map_err(|e| io::Error::new(e.kind(), format!("cannot create {}: {e}", p.display())))?;
        Ok(OutFile {
            path: p.to_path_buf(),
            file,
        })
    }

    fn named(&self, e: io::Error) -> io::Error {
        io::Error::new(e.kind(), format!("{}: {e}", self.path.display()))
    }
}

impl Write for OutFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.file.write(buf).map_err(|e| self.named(e))
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush().map_err(|e| self.named(e))
    }
}

/// Every input can be opened (standard input aside): a missing or unreadable one is a usage
/// error, said in one line before anything runs.
fn readable(files: &[PathBuf]) -> Result<(), String> {
    for p in files {
        if p.as_os_str() != "-" {
            File::open(p).map_err(|e| format!("cannot read {}: {e}", p.display()))?;
        }
    }
    Ok(())
}

/// The end of a run whose record output failed. A reader that closed the pipe (`| head`) ends
/// the run quietly, as other Unix tools do; any other failure is an error.
fn records_error(e: io::Error) -> Result<ExitCode, String> {
    if e.kind() == io::ErrorKind::BrokenPipe {
        Ok(ExitCode::SUCCESS)
    } else {
        Err(format!("writing records: {e}"))
    }
}

/// A progress bar for one input file, when progress is shown.
fn progress_bar(path: &Path) -> ProgressBar {
    let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    let b = ProgressBar::new(size);
    b.set_style(
        ProgressStyle::with_template(
            "{msg} [{bar:30}] {bytes}/{total_bytes} {bytes_per_sec} eta {eta}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> "),
    );
    b.set_message(
        path.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
    );
    b
}

/// Run `files` through the session, with a progress bar per file if asked; the number of
/// inputs that were not captures at all (empty, or neither pcap nor pcapng: nothing read).
fn run<S: RecordSink + Send>(
    session: &mut Session<S>,
    files: &[PathBuf],
    show_progress: bool,
) -> io::Result<usize> {
    use wirespeed_capture::CaptureErrorKind::{Empty, UnknownFormat};
    let mut not_captures = 0;
    for path in files {
        let bar = show_progress.then(|| progress_bar(path));
        let mut last = 0u64;
        let mut progress = |pos: u64, total: u64| {
            // Update the bar at most every 4 MiB: cheap, and smooth enough.
            if let Some(b) = &bar {
                if pos - last.min(pos) >= 4 << 20 || pos == total {
                    b.set_position(pos);
                    last = pos;
                }
            }
        };
        let outcome = session.run_file(path, &mut progress)?;
        if let Some(b) = bar {
            b.finish_and_clear();
        }
        if outcome
            .error
            .as_ref()
            .is_some_and(|e| matches!(e.kind, Empty | UnknownFormat))
        {
            not_captures += 1;
        }
    }
    Ok(not_captures)
}

fn classify(mut a: ClassifyArgs) -> Result<ExitCode, String> {
    a.files = train::expand(&a.files)?;
    let ipfix_file = ipfix_file(a.ipfix.as_deref());
    let mut outputs = a.engine.outputs();
    outputs.extend(a.output.as_deref().map(|p| ("-o", p)));
    outputs.extend(ipfix_file.as_deref().map(|p| ("--ipfix", p)));
    let mut inputs: Vec<&Path> = a.files.iter().map(PathBuf::as_path).collect();
    inputs.extend(a.engine.inputs());
    guard::outputs_apart(&outputs, &inputs)?;
    let cfg = a.engine.config()?;
    let par = a.par.config_for(&a.engine)?;
    fits_in_memory(&cfg, par.workers, a.engine.max_flows)?;
    readable(&a.files)?;
    // The set of columns depends on options only, never on how many inputs there are.
    let with_source = true;
    let _ = a.with_source;
    let progress = !a.no_progress && !a.quiet && io::stderr().is_terminal();
    let cols = Columns {
        features: a.features,
        community: a.community_id,
        ..a.engine.stats_columns()?
    };
    let parquet = parquet_out::open(
        a.format,
        a.output.as_deref(),
        Columns {
            with_source,
            ..cols
        },
        a.parquet_row_group,
    )?;
    let ipfix = ipfix_start(a.ipfix.as_deref(), false)?;
    let kafka = kafka_out::start(
        a.kafka.as_deref(),
        false,
        Columns {
            with_source,
            ..cols
        },
    )?;
    // With an exporter, JSON or CSV only where -o says.
    let out = if parquet.is_none() && ((ipfix.is_none() && kafka.is_none()) || a.output.is_some()) {
        match shared_out(a.output.as_deref(), a.format, with_source, cols) {
            Ok(out) => Some(out),
            Err(e) => return records_error(e),
        }
    } else {
        None
    };
    if a.ordered && parquet.is_some() {
        return Err("--ordered: JSON and CSV only".into());
    }
    // `--ordered`: every record held, then written by flow id once the run is over.
    let order = a.ordered.then(wirespeed_engine::ordered::Order::new);
    let mut session = Session::new(
        cfg,
        par,
        |_| {
            let text = parquet_out::sink(&parquet).or_else(|| {
                out.as_ref().map(|o| match &order {
                    Some(ord) => Box::new(ord.sink(|tap| {
                        shared_sink(
                            a.format,
                            &SharedWriter::new(Box::new(tap)),
                            with_source,
                            cols,
                        )
                    })) as Box<dyn RecordSink + Send>,
                    None => shared_sink(a.format, o, with_source, cols),
                })
            });
            with_exports(text, &ipfix, &kafka)
        },
        with_source,
    );
    let not_captures = match run(&mut session, &a.files, progress) {
        Ok(n) => n,
        Err(e) => return records_error(e),
    };
    let dispatch = session.dispatch_stats().cloned();
    // The sinks, and with them their exporter handles, are dropped here: the exporter thread
    // ends once it has sent what they queued.
    let finished = session.finish().map(|(summary, _sinks)| summary);
    let summary = match finished {
        Ok(summary) => summary,
        Err(e) => return records_error(e),
    };
    if let (Some(ord), Some(o)) = (&order, &out) {
        if let Err(e) = ord.write_to(&mut o.clone()) {
            return records_error(e);
        }
    }
    parquet_out::finish(parquet, a.quiet)?;
    let ipfix_dropped = ipfix_finish(ipfix, a.quiet)?;
    let kafka_lost = kafka_out::finish(kafka, a.quiet)?;
    let failed: Vec<_> = summary.files.iter().filter_map(|f| f.2.as_ref()).collect();
    if !a.quiet {
        eprint!("{}", summary.render(a.verbose));
        if let (true, Some(d)) = (a.verbose, &dispatch) {
            print_dispatch(d);
        }
    } else {
        for e in &failed {
            eprintln!("wirespeed: input error: {e}");
        }
    }
    // Exit 2 when an input was not a capture at all; 1 when some input could not be read to
    // its end (its good packets were processed), or when IPFIX or Kafka records were lost.
    Ok(if not_captures > 0 {
        ExitCode::from(EXIT_USAGE)
    } else if failed.is_empty() && ipfix_dropped + kafka_lost == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_PARTIAL)
    })
}

/// The file `--ipfix file:PATH` (or a plain path) writes, if that is its target.
fn ipfix_file(target: Option<&str>) -> Option<PathBuf> {
    match wirespeed_export::ipfix::Options::parse(target?)
        .ok()?
        .target
    {
        wirespeed_export::ipfix::Target::File(p) => Some(p),
        _ => None,
    }
}

/// A run's IPFIX exporter and its thread.
type Ipfix = Option<(Exporter, std::thread::JoinHandle<io::Result<()>>)>;

/// Start the IPFIX exporter `--ipfix` asks for; `lossy` for live and inline runs, which never
/// wait on a collector.
fn ipfix_start(target: Option<&str>, lossy: bool) -> Result<Ipfix, String> {
    let Some(t) = target else { return Ok(None) };
    let mut o = wirespeed_export::ipfix::Options::parse(t)?;
    o.lossy = lossy;
    Exporter::spawn(o)
        .map(Some)
        .map_err(|e| format!("--ipfix {t}: {e}"))
}

/// A worker's sink: the text records (None: not written) and each exporter's (IPFIX, Kafka),
/// all fed the same records.
fn with_exports(
    text: Option<Box<dyn RecordSink + Send>>,
    ipfix: &Ipfix,
    kafka: &kafka_out::Kafka,
) -> Box<dyn RecordSink + Send> {
    let x = ipfix
        .as_ref()
        .map(|(e, _)| Box::new(IpfixSink::new(e.clone())) as Box<dyn RecordSink + Send>);
    let mut sinks = text.into_iter().chain(x).chain(kafka_out::sink(kafka));
    let first = sinks
        .next()
        .unwrap_or_else(|| Box::new(wirespeed_export::NullSink::default()));
    sinks.fold(first, |a, b| Box::new(Tee(a, b)))
}

/// Wait for the exporter to send what is queued (every worker's sink must be dropped first),
/// and print its figures unless `quiet`; the records it dropped (said on standard error, quiet
/// or not: the run's exit status is 1 then).
fn ipfix_finish(ipfix: Ipfix, quiet: bool) -> Result<u64, String> {
    let Some((e, h)) = ipfix else { return Ok(0) };
    let c = e.counters.clone();
    drop(e);
    match h.join() {
        Ok(Ok(())) => {}
        Ok(Err(e)) => return Err(format!("--ipfix: {e}")),
        Err(_) => return Err("--ipfix: the exporter thread panicked".into()),
    }
    if !quiet {
        eprintln!("{}", ipfix_line(&c));
    }
    let dropped = c.dropped.load(std::sync::atomic::Ordering::Relaxed);
    if dropped > 0 {
        eprintln!("wirespeed: {dropped} IPFIX records dropped: the collector was down or slow");
    }
    Ok(dropped)
}

/// The exporter's figures, one line for the summary.
fn ipfix_line(c: &wirespeed_export::ipfix::Counters) -> String {
    use std::sync::atomic::Ordering::Relaxed;
    format!(
        "ipfix: {} data records in {} messages, templates sent {} times, {} records dropped, \
         {} reconnections",
        c.records.load(Relaxed),
        c.messages.load(Relaxed),
        c.templates.load(Relaxed),
        c.dropped.load(Relaxed),
        c.reconnects.load(Relaxed)
    )
}

/// Open the shared output; for CSV, write the header once, first.
fn shared_out(
    path: Option<&Path>,
    format: Format,
    with_source: bool,
    cols: Columns,
) -> io::Result<SharedWriter> {
    let out: Box<dyn Write + Send> = match stdout_path(path) {
        Some(p) => Box::new(OutFile::create(p)?),
        None => Box::new(io::stdout()),
    };
    let out = SharedWriter::new(out);
    if format == Format::Csv {
        CsvWriter::new(out.clone(), with_source)
            .with_columns(cols)
            .finish()?;
    }
    Ok(out)
}

fn shared_sink(
    format: Format,
    out: &SharedWriter,
    with_source: bool,
    cols: Columns,
) -> Box<dyn RecordSink + Send> {
    let w = out.clone();
    match format {
        Format::Json => Box::new(JsonLinesWriter::new(w, with_source).with_columns(cols)),
        Format::Csv => Box::new(CsvWriter::headerless(w, with_source).with_columns(cols)),
        Format::Parquet => unreachable!("Parquet records go through parquet_out's sinks"),
    }
}

/// Nanosecond counts as seconds with 3 decimals, comma-separated.
fn secs(ns: &[u64]) -> String {
    let s: Vec<String> = ns
        .iter()
        .map(|&n| format!("{:.3}", n as f64 / 1e9))
        .collect();
    s.join(", ")
}

fn print_dispatch(d: &DispatchStats) {
    if !d.reader_thread {
        eprintln!(
            "dispatch: {} workers sharing one scan of the file, packets per worker {:?}, waited {} \
             times for another worker, {} later fragments sent by their first fragment's ports",
            d.per_worker.len(),
            d.per_worker,
            d.ahead_waits,
            d.frags_mapped
        );
        eprintln!(
            "wall time per worker: scanning for all [{}] s, waiting for another [{}] s",
            secs(&d.scan_ns),
            secs(&d.wait_ns)
        );
    } else {
        eprintln!(
        "dispatch: {} workers, packets per worker {:?}, rings of {} batches, reader waited on a \
         full ring {} times, {} dropped between reader and workers, {} later fragments sent by \
         their first fragment's ports",
        d.per_worker.len(),
        d.per_worker,
        d.ring_batches,
        d.ring_full_waits,
        d.dropped,
        d.frags_mapped
    );
    }
    if d.reader_thread {
        eprintln!(
            "cpu time: reader {:.3} s, workers [{}] s",
            d.reader_cpu_ns as f64 / 1e9,
            secs(&d.worker_cpu_ns)
        );
    } else {
        eprintln!(
            "cpu time: no reader thread (the workers take turns scanning), workers [{}] s",
            secs(&d.worker_cpu_ns)
        );
    }
}

fn gen_cmd(a: GenArgs) -> Result<ExitCode, String> {
    if let Some(iface) = &a.to {
        if !matches!(a.trace, Trace::WorstCase) {
            return Err("--to streams the worst case only".into());
        }
        let p = gen::WorstCase {
            flows: a.flows,
            pkts_per_flow: a.pkts.max(1),
            window: a.window.max(1),
            ..gen::WorstCase::default()
        };
        let mut buf = Vec::new();
        gen::worst_case(&mut buf, &p).map_err(|e| e.to_string())?;
        let file = wirespeed_capture::CaptureFile::from_bytes("worst-case", buf)
            .map_err(|e| e.to_string())?;
        return send_file(iface, &file, a.pace.pace()?, 0);
    }
    let Some(output) = a.output else {
        return Err("gen needs -o FILE or --to IFACE".into());
    };
    // `-o -`: standard output, for `wirespeed gen demo -o - | wirespeed classify -`.
    let w = BufWriter::with_capacity(1 << 20, open_out(Some(&output)).map_err(|e| e.to_string())?);
    match a.trace {
        Trace::WorstCase => {
            let p = gen::WorstCase {
                flows: a.flows,
                pkts_per_flow: a.pkts.max(1),
                window: a.window.max(1),
                ..gen::WorstCase::default()
            };
            let n = gen::worst_case(w, &p).map_err(|e| e.to_string())?;
            eprintln!(
                "wrote {n} packets, {} flows to {}",
                p.flows,
                output.display()
            );
        }
        Trace::Demo => {
            let (flows, _) = gen::demo(w).map_err(|e| e.to_string())?;
            eprintln!("wrote {} flows to {}", flows.len(), output.display());
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// A flag that SIGINT and SIGTERM set.
fn stop_flag() -> Result<Arc<AtomicBool>, String> {
    let stop = Arc::new(AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register(sig, stop.clone()).map_err(|e| format!("signals: {e}"))?;
    }
    Ok(stop)
}

fn send_file(
    iface: &str,
    file: &wirespeed_capture::CaptureFile,
    pace: wirespeed_live::Pace,
    loops: u64,
) -> Result<ExitCode, String> {
    let stop = stop_flag()?;
    let mut tx = wirespeed_live::sys::TxSocket::open(iface).map_err(|e| format!("{iface}: {e}"))?;
    let st =
        wirespeed_live::replay(&mut tx, file, pace, loops, &stop).map_err(|e| e.to_string())?;
    eprintln!(
        "replay: {} frames, {} bytes in {:.3} s: {:.0} pps, {:.1} Mbit/s; refused by the kernel {}, \
         not Ethernet (skipped) {}, waits on a full device queue {}",
        st.sent,
        st.bytes,
        st.elapsed_s,
        st.pps(),
        st.mbps(),
        st.refused,
        st.skipped_link,
        st.busy_waits
    );
    Ok(ExitCode::SUCCESS)
}

/// `wirespeed list apps|classifiers`.
fn list(a: ListArgs) -> Result<ExitCode, String> {
    let mut out = io::stdout().lock();
    let mut text = String::new();
    match a.what {
        ListWhat::Apps => {
            let rules = a.files.rules()?;
            let labels = rules.labels();
            // application -> (category, masters it is named over)
            let mut apps: std::collections::BTreeMap<
                (&str, &str),
                std::collections::BTreeSet<&str>,
            > = Default::default();
            for i in 0..labels.len() {
                let l = labels.get(wirespeed_classify::LabelId(i as u16));
                if l.app() == "Unknown" {
                    continue;
                }
                apps.entry((l.app(), l.category()))
                    .or_default()
                    .insert(l.master());
            }
            text.push_str("app\tcategory\tmasters\n");
            for ((app, cat), masters) in apps {
                let m: Vec<&str> = masters.into_iter().collect();
                text.push_str(&format!("{app}\t{cat}\t{}\n", m.join(",")));
            }
        }
        ListWhat::Protocols => {
            let rules = a.files.rules()?;
            let labels = rules.labels();
            // protocol -> (category, by payload, by port or IP protocol number, usual ports:
            // ("tcp"|"udp", port) or ("ip", protocol number))
            type Row = (
                String,
                bool,
                bool,
                std::collections::BTreeSet<(&'static str, u16)>,
            );
            let mut rows: std::collections::BTreeMap<String, Row> = Default::default();
            for ins in wirespeed_dpi::proto::REGISTRY {
                for (i, l) in ins.labels.iter().enumerate() {
                    let r = rows.entry(l.app.to_string()).or_insert((
                        l.category.to_string(),
                        false,
                        false,
                        Default::default(),
                    ));
                    r.1 = true;
                    // The inspector's ports are its generic (first) label's, unless the port
                    // table gives a port to another of its protocols (5353 is mDNS's).
                    if i == 0 {
                        for &p in ins.ports {
                            for (bit, t, proto) in [
                                (wirespeed_dpi::TCP, "tcp", 6),
                                (wirespeed_dpi::UDP, "udp", 17),
                            ] {
                                let other = rules
                                    .ports()
                                    .port(proto, p)
                                    .is_some_and(|id| labels.get(id).master() != l.app);
                                if ins.transports & bit != 0 && !other {
                                    r.3.insert((t, p));
                                }
                            }
                        }
                    }
                }
            }
            for (t, p, id) in rules.ports().entries() {
                let l = labels.get(id);
                let r = rows.entry(l.master().to_string()).or_insert((
                    l.category().to_string(),
                    false,
                    false,
                    Default::default(),
                ));
                r.2 = true;
                r.3.insert((t, p));
            }
            // Transports without ports that the IP protocol number names (ICMP, OSPF, ...).
            for n in 0..=u8::MAX {
                if let Some(l) = wirespeed_classify::ipproto::lookup(n) {
                    let r = rows.entry(l.master.to_string()).or_insert((
                        l.category.to_string(),
                        false,
                        false,
                        Default::default(),
                    ));
                    r.2 = true;
                    r.3.insert(("ip", u16::from(n)));
                }
            }
            text.push_str("protocol\tcategory\trecognised by\tports\n");
            for (name, (cat, payload, port, ports)) in rows {
                let ip = ports.iter().any(|(t, _)| *t == "ip");
                let by = match (payload, port, ip) {
                    (true, true, _) => "payload,port",
                    (true, false, _) => "payload",
                    (false, _, true) => "ip-protocol",
                    _ => "port",
                };
                let ports: Vec<String> = ports.iter().map(|(t, p)| format!("{t}/{p}")).collect();
                text.push_str(&format!("{name}\t{cat}\t{by}\t{}\n", ports.join(",")));
            }
        }
        ListWhat::Classifiers => {
            for (name, what) in [
                ("ip", "the owner of the server's address block, else the client's (data/app_networks.csv, --networks, --rules ip:); below a port guess"),
                ("port", "well-known ports and IP protocol numbers: a guess"),
                ("dpt", "seed 001's Dedicated Port Table: what payload inspection labelled earlier flows on either end-point {address, port, transport}, two thirds agreeing, where nothing better names the flow"),
                ("dns-cache", "an address a DNS answer named earlier in the capture: the service of the name, at the flow's first packet (from the next --learn-epoch on)"),
                ("host-cache", "seed 002's Host Cache: a server end-point whose earlier flows payload inspection labelled (U = x*p >= --host-cache-uth in a window), at the flow's first packet; payload inspection confirms or corrects"),
                ("stats", "the statistical model over the first packets: alone, at 0.80 confidence or more"),
                ("dpi", "payload inspection; the service by the SNI, HTTP Host or DNS query (data/app_hosts.csv, --hosts, --rules host:)"),
            ] {
                text.push_str(&format!("{name}\t{what}\n"));
            }
            for name in wirespeed_classify::PLANNED {
                text.push_str(&format!("{name}\tnot built yet\n"));
            }
        }
    }
    match out.write_all(text.as_bytes()) {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(ExitCode::SUCCESS),
        r => r.map(|_| ExitCode::SUCCESS).map_err(|e| e.to_string()),
    }
}

fn replay(a: ReplayArgs) -> Result<ExitCode, String> {
    let file = wirespeed_capture::CaptureFile::open(&a.file).map_err(|e| e.to_string())?;
    send_file(&a.interface, &file, a.pace.pace()?, a.loops)
}

fn live(a: LiveArgs) -> Result<ExitCode, String> {
    let ipfix_file = ipfix_file(a.ipfix.as_deref());
    let mut outputs = a.engine.outputs();
    outputs.extend(a.output.as_deref().map(|p| ("-o", p)));
    outputs.extend(ipfix_file.as_deref().map(|p| ("--ipfix", p)));
    guard::outputs_apart(&outputs, &a.engine.inputs())?;
    // Tstat's timeouts: a live link has no end of file to end its flows.
    let cfg = a.engine.config_with([300.0, 120.0, 60.0, 120.0], true)?;
    let par = a.par.config_for(&a.engine)?;
    fits_in_memory(&cfg, par.workers, a.engine.max_flows)?;
    let filter = match &a.filter {
        Some(f) => Some(wirespeed_live::bpf::compile(f)?),
        None => None,
    };
    let secs = |s: f64, what: &str| {
        if s.is_finite() && s >= 0.0 {
            Ok(std::time::Duration::from_secs_f64(s))
        } else {
            Err(format!("--{what} must be a number of seconds"))
        }
    };
    let lc = wirespeed_live::LiveConfig {
        ifaces: a.interface.clone(),
        workers: par.workers,
        pin: par.pin,
        buffer_mb: par.buffer_mb,
        filter,
        user: a.user.clone(),
        status_every: secs(a.status, "status")?,
        duration: a.duration.map(|d| secs(d, "duration")).transpose()?,
        metrics: a.metrics.map(|_| RunStats::live(cfg.rules.clone())),
        engine: cfg,
    };
    let _metrics = serve_metrics(a.metrics, lc.metrics.as_ref(), a.quiet)?;
    let stop = stop_flag()?;
    // The output is opened once the capture sockets are (no file is left behind by a run that
    // could not open them), and before privileges are dropped.
    let out: std::rc::Rc<std::cell::RefCell<Option<LiveOut>>> = Default::default();
    let (path, format, quiet, verbose) = (a.output.clone(), a.format.into(), a.quiet, a.verbose);
    let cols = Columns {
        features: a.features,
        community: a.community_id,
        ..a.engine.stats_columns()?
    };
    let (slot, stop2, stats) = (out.clone(), stop.clone(), lc.metrics.clone());
    let mut opened = move || -> io::Result<()> {
        let o = lossy_out(path.as_deref(), format, cols, stop2.clone())?;
        if let Some(m) = &stats {
            m.set_output(OutputCounters::of(&o.0));
        }
        *slot.borrow_mut() = Some(o);
        Ok(())
    };
    let slot = out.clone();
    let ipfix = ipfix_start(a.ipfix.as_deref(), true)?;
    let kafka_cols = Columns {
        with_source: true,
        ..cols
    };
    let kafka = kafka_out::start(a.kafka.as_deref(), true, kafka_cols)?;
    let text_too = (ipfix.is_none() && kafka.is_none()) || a.output.is_some();
    let (x, k) = (&ipfix, &kafka);
    let sink = move |_| -> Box<dyn RecordSink + Send> {
        // Opened before the session that asks for sinks is built.
        let w = slot
            .borrow()
            .as_ref()
            .map(|o| o.0.clone())
            .filter(|_| text_too);
        with_exports(live_text(w, format, cols), x, k)
    };
    let run = wirespeed_live::run(&lc, sink, stop, &mut opened, &mut |line| {
        if !quiet {
            eprintln!("{line}");
        }
    });
    let Some((lossy, writer)) = out.borrow_mut().take() else {
        return Err(run
            .err()
            .map_or("the output was not opened".into(), |e| e.to_string()));
    };
    let Closed {
        write_error,
        lost,
        dropped,
        dropped_bytes,
    } = close_live_out(lossy, writer);
    let ipfix_dropped = ipfix_finish(ipfix, quiet)?;
    let kafka_lost = kafka_out::finish(kafka, quiet)?;
    // A failed run (an interface gone) still wrote the records of its flows: written above.
    let o = match run {
        Ok(o) => o,
        Err(e) => {
            if lost > 0 {
                eprintln!("wirespeed: {lost} records lost because the output did not keep up");
            }
            return Err(e.to_string());
        }
    };
    if !a.quiet {
        let summary = Summary {
            counters: o.counters,
            categories: wirespeed_engine::app_categories(&o.apps, lc.engine.rules.labels()),
            apps: o.apps,
            files: Vec::new(),
            elapsed_s: o.elapsed_s,
            learn: o.learn,
        };
        eprint!("{}", summary.render(verbose));
        eprintln!(
            "kernel: {} packets passed the filter, {} dropped with the ring full, {} queue \
             freezes; {} frames arrived with their VLAN tag already removed",
            o.kernel.packets, o.kernel.drops, o.kernel.freezes, o.vlan_stripped
        );
        eprintln!(
            "output: {} records ({} bytes) dropped because the output did not keep up",
            dropped, dropped_bytes
        );
    }
    match write_error {
        Some(e) => Err(format!("writing records: {e}")),
        // Every record is written or counted; any loss makes the exit non-zero.
        None if lost > 0 => {
            eprintln!("wirespeed: {lost} records lost because the output did not keep up");
            Ok(ExitCode::from(EXIT_PARTIAL))
        }
        None if ipfix_dropped + kafka_lost > 0 => Ok(ExitCode::from(EXIT_PARTIAL)),
        None => Ok(ExitCode::SUCCESS),
    }
}

/// How long after the stop a live run waits for its output to take the last records.
const LIVE_GRACE: std::time::Duration = std::time::Duration::from_secs(10);

/// What closing a live output came to ([`close_live_out`]).
struct Closed {
    /// The writer's first error, or the stall that made it be abandoned.
    write_error: Option<io::Error>,
    /// Records lost: dropped while the output did not keep up, and still queued at a stall.
    lost: u64,
    /// Records, and their bytes, dropped while the output did not keep up.
    dropped: u64,
    dropped_bytes: u64,
}

/// Close a live output once the workers' sinks are gone: the queue ends and the writer writes
/// what is left, unless the output is stalled, in which case it is abandoned after the grace
/// period and what it still holds is counted as lost.
fn close_live_out(lossy: LossyWriter, writer: std::thread::JoinHandle<io::Result<()>>) -> Closed {
    let (dropped, queued) = (lossy.dropped_records.clone(), lossy.queued_records.clone());
    let dropped_bytes = lossy.dropped_bytes.clone();
    drop(lossy);
    let t = Instant::now();
    while !writer.is_finished() && t.elapsed() < LIVE_GRACE {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let (write_error, stranded) = if writer.is_finished() {
        (writer.join().ok().and_then(|r| r.err()), 0)
    } else {
        let n = queued.load(Ordering::Relaxed);
        (
            Some(io::Error::other(format!(
                "the output is stalled: {n} records still queued are lost"
            ))),
            n,
        )
    };
    let dropped = dropped.load(Ordering::Relaxed);
    Closed {
        write_error,
        lost: dropped + stranded,
        dropped,
        dropped_bytes: dropped_bytes.load(Ordering::Relaxed),
    }
}

/// The live output and its writer thread (which returns the first write error).
type LiveOut = (LossyWriter, std::thread::JoinHandle<io::Result<()>>);

/// A live or inline worker's text sink on the run's lossy output (None: no text records).
/// Records name the interfaces as their `source` (no `pcap`): the columns `classify` writes.
fn live_text(
    w: Option<LossyWriter>,
    format: Format,
    cols: Columns,
) -> Option<Box<dyn RecordSink + Send>> {
    match (w?, format) {
        (w, Format::Json) => Some(Box::new(JsonLinesWriter::new(w, true).with_columns(cols))),
        (w, Format::Csv) => Some(Box::new(CsvWriter::headerless(w, true).with_columns(cols))),
        (_, Format::Parquet) => None,
    }
}

/// Open the live output (`-` or none: standard output) for a run that stops with `stop`.
fn lossy_out(
    path: Option<&Path>,
    format: Format,
    cols: Columns,
    stop: Arc<AtomicBool>,
) -> io::Result<LiveOut> {
    let mut out: Box<dyn Write + Send> = match stdout_path(path) {
        Some(p) => Box::new(OutFile::create(p)?),
        None => Box::new(io::stdout()),
    };
    if format == Format::Csv {
        out = CsvWriter::new(out, true).with_columns(cols).into_inner()?;
    }
    Ok(LossyWriter::new(out, stop, LIVE_GRACE))
}

/// Serve `stats` at `http://ADDR/metrics` (`--metrics`) until the server is dropped; says where
/// on standard error unless `quiet`.
fn serve_metrics(
    addr: Option<std::net::SocketAddr>,
    stats: Option<&Arc<RunStats>>,
    quiet: bool,
) -> Result<Option<MetricsServer>, String> {
    let (Some(addr), Some(stats)) = (addr, stats) else {
        return Ok(None);
    };
    let stats = stats.clone();
    let server = MetricsServer::start(addr, Default::default(), move || stats.render())
        .map_err(|e| format!("--metrics {addr}: {e}"))?;
    if !quiet {
        eprintln!("metrics: serving http://{}/metrics", server.local_addr());
    }
    Ok(Some(server))
}

/// Peak resident set size of this process in KiB (Linux), if known.
fn peak_rss_kib() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn bench(a: BenchArgs) -> Result<ExitCode, String> {
    let mut outputs = a.engine.outputs();
    outputs.extend(a.output.as_deref().map(|p| ("-o", p)));
    let mut inputs: Vec<&Path> = a.files.iter().map(PathBuf::as_path).collect();
    inputs.extend(a.engine.inputs());
    guard::outputs_apart(&outputs, &inputs)?;
    let cfg = a.engine.config()?;
    fits_in_memory(
        &cfg,
        a.par.config_for(&a.engine)?.workers,
        a.engine.max_flows,
    )?;
    let mut tmp = None;
    let files = if a.files.is_empty() {
        let p = std::env::temp_dir().join(format!(
            "wirespeed-worst-{}-{}.pcap",
            a.flows,
            std::process::id()
        ));
        let f = File::create(&p).map_err(|e| format!("cannot create {}: {e}", p.display()))?;
        let wc = gen::WorstCase {
            flows: a.flows,
            ..gen::WorstCase::default()
        };
        let n = gen::worst_case(BufWriter::with_capacity(1 << 20, f), &wc)
            .map_err(|e| e.to_string())?;
        eprintln!(
            "generated worst case: {n} packets, {} flows -> {}",
            a.flows,
            p.display()
        );
        tmp = Some(p.clone());
        vec![p]
    } else {
        a.files.clone()
    };
    let mut inputs = Vec::new();
    for _ in 0..a.repeat.max(1) {
        inputs.extend(files.iter().cloned());
    }
    // Records are always formatted (JSON) so the figure includes the sink; with no --output
    // they are formatted into a buffer and discarded.
    let par = a.par.config_for(&a.engine)?;
    let out = match &a.output {
        Some(p) => shared_out(Some(p), Format::Json, false, Columns::default())
            .map_err(|e| e.to_string())?,
        None => SharedWriter::new(Box::new(io::sink())),
    };
    let workers = par.workers;
    let mut session = Session::new(
        cfg,
        par,
        |_| shared_sink(Format::Json, &out, false, Columns::default()),
        false,
    );
    if run(&mut session, &inputs, false).map_err(|e| e.to_string())? > 0 {
        return Err("an input is not a capture (pcap or pcapng)".into());
    }
    if workers > 1 {
        if let Some(d) = session.dispatch_stats() {
            print_dispatch(d);
        }
    }
    let start = Instant::now();
    let (summary, _) = session.finish().map_err(|e| e.to_string())?;
    let t_finish = start.elapsed().as_secs_f64();
    let t_run = summary.elapsed_s;
    let elapsed = t_run + t_finish;
    let c = summary.counters;
    let rss = peak_rss_kib().unwrap_or(0);
    println!(
        "packets {}  flows {}  time {:.3} s  {:.2} Mpps  {:.1} ns/packet  peak RSS {} MiB",
        c.packets,
        c.records,
        elapsed,
        c.packets as f64 / elapsed / 1e6,
        elapsed * 1e9 / c.packets.max(1) as f64,
        rss / 1024
    );
    if let Some(p) = tmp {
        let _ = std::fs::remove_file(p);
    }
    Ok(ExitCode::SUCCESS)
}

/// `N` or `A:B` (at most 64 queues).
fn parse_queues(s: &str) -> Result<Vec<u16>, String> {
    let bad = || format!("--queue {s:?}: a queue number (0-65535) or a range such as 0:3");
    let (a, b) = s.split_once(':').unwrap_or((s, s));
    let a: u16 = a.trim().parse().map_err(|_| bad())?;
    let b: u16 = b.trim().parse().map_err(|_| bad())?;
    if a > b || b - a >= 64 {
        return Err(format!("{}: at most 64 queues, low to high", bad()));
    }
    Ok((a..=b).collect())
}

fn read_policy(
    path: &Path,
    labels: &wirespeed_classify::Labels,
) -> Result<wirespeed_act::Policy, String> {
    // Capped, and only a regular file: at start and at every SIGHUP (issue 33).
    let text = wirespeed_act::read_policy_file(path)
        .map_err(|e| format!("cannot read the policy {}: {e}", path.display()))?;
    wirespeed_act::Policy::from_toml(&text, labels)
        .map_err(|e| format!("policy {}: {e}", path.display()))
}

fn inline(a: InlineArgs) -> Result<ExitCode, String> {
    let ipfix_file = ipfix_file(a.ipfix.as_deref());
    let mut outputs = a.engine.outputs();
    outputs.extend(a.output.as_deref().map(|p| ("-o", p)));
    outputs.extend(ipfix_file.as_deref().map(|p| ("--ipfix", p)));
    let mut inputs = a.engine.inputs();
    inputs.push(&a.policy);
    guard::outputs_apart(&outputs, &inputs)?;
    // A live link's timeouts, as `live`.
    let cfg = a.engine.config_with([300.0, 120.0, 60.0, 120.0], true)?;
    let policy = read_policy(&a.policy, cfg.rules.labels())?;
    let bypass = !a.no_bypass;
    if a.check {
        println!("rule\taction");
        for r in &policy.rules {
            println!("{}\t{}", r.name, r.action);
        }
        println!("unclassified\t{}", policy.unclassified);
        println!("default\t{}", policy.default);
        return Ok(ExitCode::SUCCESS);
    }
    let queues = parse_queues(a.queue.as_deref().unwrap_or(""))?;
    fits_in_memory(&cfg, queues.len(), a.engine.max_flows)?;
    if a.print_rules {
        println!(
            "# wirespeed inline --queue {}: the firewall rules (filter table, then mangle)",
            a.queue.as_deref().unwrap_or("")
        );
        for cmd in ["iptables-legacy", "ip6tables-legacy"] {
            for line in wirespeed_live::inline::kernel_rules(
                cmd,
                &a.chain,
                &queues,
                &policy.dscps(),
                bypass,
            ) {
                println!("{line}");
            }
        }
        return Ok(ExitCode::SUCCESS);
    }
    let secs = |s: f64, what: &str| {
        if s.is_finite() && s >= 0.0 {
            Ok(std::time::Duration::from_secs_f64(s))
        } else {
            Err(format!("--{what} must be a number of seconds"))
        }
    };
    if a.queue_len == 0 {
        return Err("--queue-len must be at least 1".into());
    }
    let cell = wirespeed_act::PolicyCell::new(policy);
    let labels = cfg.rules.clone();
    let ic = wirespeed_live::inline::InlineConfig {
        queues,
        policy: cell.clone(),
        bypass,
        queue: wirespeed_live::nfqueue::QueueConfig {
            max_len: a.queue_len,
            ..Default::default()
        },
        pin: a.pin,
        status_every: secs(a.status, "status")?,
        duration: a.duration.map(|d| secs(d, "duration")).transpose()?,
        metrics: a
            .metrics
            .map(|_| RunStats::inline(cfg.rules.clone(), cell.clone())),
        engine: cfg,
    };
    let _metrics = serve_metrics(a.metrics, ic.metrics.as_ref(), a.quiet)?;
    let stop = stop_flag()?;
    let reload = Arc::new(AtomicBool::new(false));
    signal_hook::flag::register(signal_hook::consts::SIGHUP, reload.clone())
        .map_err(|e| format!("signals: {e}"))?;
    let out: std::rc::Rc<std::cell::RefCell<Option<LiveOut>>> = Default::default();
    let (path, format, quiet) = (a.output.clone(), a.format.into(), a.quiet);
    let cols = Columns {
        action: true,
        ..a.engine.stats_columns()?
    };
    let (slot, stop2, stats) = (out.clone(), stop.clone(), ic.metrics.clone());
    let mut opened = move || -> io::Result<()> {
        let o = lossy_out(path.as_deref(), format, cols, stop2.clone())?;
        if let Some(m) = &stats {
            m.set_output(OutputCounters::of(&o.0));
        }
        *slot.borrow_mut() = Some(o);
        Ok(())
    };
    let slot = out.clone();
    let ipfix = ipfix_start(a.ipfix.as_deref(), true)?;
    let kafka_cols = Columns {
        with_source: true,
        ..cols
    };
    let kafka = kafka_out::start(a.kafka.as_deref(), true, kafka_cols)?;
    let text_too = (ipfix.is_none() && kafka.is_none()) || a.output.is_some();
    let (x, k) = (&ipfix, &kafka);
    let sink = move |_| -> Box<dyn RecordSink + Send> {
        let w = slot
            .borrow()
            .as_ref()
            .map(|o| o.0.clone())
            .filter(|_| text_too);
        with_exports(live_text(w, format, cols), x, k)
    };
    let policy_path = a.policy.clone();
    let status = |line: &str| {
        if !quiet {
            eprintln!("{line}");
        }
    };
    let mut tick = || {
        if reload.swap(false, Ordering::Relaxed) {
            match read_policy(&policy_path, labels.labels()) {
                Ok(p) => {
                    let n = p.rules.len();
                    cell.replace(p);
                    status(&format!("inline: policy reloaded: {n} rules"));
                }
                Err(e) => status(&format!(
                    "inline: policy not reloaded, the old one stays: {e}"
                )),
            }
        }
    };
    let run =
        wirespeed_live::inline::run(&ic, sink, stop, &mut opened, &mut |l| status(l), &mut tick);
    let Some((lossy, writer)) = out.borrow_mut().take() else {
        return Err(run
            .err()
            .map_or("the output was not opened".into(), |e| e.to_string()));
    };
    let Closed {
        write_error, lost, ..
    } = close_live_out(lossy, writer);
    let ipfix_dropped = ipfix_finish(ipfix, a.quiet)?;
    let kafka_lost = kafka_out::finish(kafka, a.quiet)?;
    let o = run.map_err(|e| e.to_string())?;
    if !a.quiet {
        let summary = Summary {
            counters: o.counters,
            categories: wirespeed_engine::app_categories(&o.apps, ic.engine.rules.labels()),
            apps: o.apps,
            files: Vec::new(),
            elapsed_s: o.elapsed_s,
            learn: None,
        };
        eprint!("{}", summary.render(false));
        let q = o.queue;
        eprintln!(
            "queue: {} packets: {} accepted, {} dropped, {} marked here, {} handed to the kernel; \
             {} given an id but not delivered (accepted unseen: fail open; a full queue's are not counted by the kernel), {} came back with a final action \
             (firewall rules missing: --print-rules), {} malformed messages",
            q.packets, q.accepted, q.dropped, q.marked, q.bound, q.unseen, q.rules_missing, q.malformed
        );
        eprintln!(
            "rule\taction\tflows\tpackets\tbytes\tdropped_pkts\tdropped_bytes\tmarked\tbound"
        );
        for (name, action, c) in ic.policy.totals() {
            eprintln!(
                "{name}\t{action}\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
                c.flows, c.packets, c.bytes, c.dropped_packets, c.dropped_bytes, c.marked, c.bound
            );
        }
    }
    match write_error {
        Some(e) => Err(format!("writing records: {e}")),
        None if lost > 0 => {
            eprintln!("wirespeed: {lost} records lost because the output did not keep up");
            Ok(ExitCode::from(EXIT_PARTIAL))
        }
        None if ipfix_dropped + kafka_lost > 0 => Ok(ExitCode::from(EXIT_PARTIAL)),
        None => Ok(ExitCode::SUCCESS),
    }
}
