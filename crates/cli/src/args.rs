//! The argument groups several commands share: the engine's options ([`EngineArgs`], with the
//! files of [`RuleArgs`]), the workers' ([`ParallelArgs`]), the record formats, replay's pace.
//! What they make (the engine's configuration) is in `config`.

use clap::{Args, ValueEnum};
use std::path::{Path, PathBuf};
use wirespeed_export::{Columns, Keep};

#[derive(Args, Clone)]
pub(crate) struct PaceArgs {
    /// Packets per second (default: as fast as the interface takes them).
    #[arg(long, conflicts_with_all = ["mbps", "timing"])]
    pub(crate) pps: Option<f64>,
    /// Megabits per second of frame bytes.
    #[arg(long, conflicts_with = "timing")]
    pub(crate) mbps: Option<f64>,
    /// `original`: keep the gaps between the capture's timestamps.
    #[arg(long, value_parser = ["original"])]
    pub(crate) timing: Option<String>,
}

impl PaceArgs {
    pub(crate) fn pace(&self) -> Result<wirespeed_live::Pace, String> {
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

/// The formats a live or inline run writes: records as they end, to a stream.
#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub(crate) enum TextFormat {
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
pub(crate) enum Format {
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
pub(crate) enum TunnelMode {
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
pub(crate) struct RuleArgs {
    /// Statistical model file for the `stats` classifier (default: the model built in).
    #[arg(long)]
    pub(crate) model: Option<PathBuf>,
    /// More byte signatures for payload inspection, in the format of crates/dpi/signatures.txt;
    /// they are tried after the built-in ones.
    #[arg(long, value_name = "FILE")]
    pub(crate) signatures: Option<PathBuf>,
    /// Payload search: a file of patterns, one a line (`#` comments, `\xNN` escapes; see
    /// docs/SCHEMA.md, field `matches`), looked for in the packets inspected by `dpi`.
    #[arg(long = "match", value_name = "FILE")]
    pub(crate) match_file: Option<PathBuf>,
    /// Operator rules in nDPI's protos.txt syntax: `host:"pattern"@Name`, `ip:CIDR@Name`,
    /// `ipv6:[CIDR]@Name`, `tcp:PORT[-PORT],...@Name`, `udp:...@Name` (docs/SCHEMA.md).
    #[arg(long, value_name = "FILE")]
    pub(crate) rules: Option<PathBuf>,
    /// More host-name rules (`pattern,app,category,breed` rows, as data/app_hosts.csv), loaded
    /// after the built-in list; a pattern already there takes the new service.
    #[arg(long, value_name = "FILE")]
    pub(crate) hosts: Option<PathBuf>,
    /// More address owners (`network,app,category` rows, as data/app_networks.csv), loaded after
    /// the built-in list; a block equal to a built-in one takes the new owner.
    #[arg(long, value_name = "FILE")]
    pub(crate) networks: Option<PathBuf>,
}

#[derive(Args, Clone)]
pub(crate) struct EngineArgs {
    /// Classifiers to run, in any order, comma-separated: port, ip, dpt, dns-cache,
    /// host-cache, stats, dpi, "all" or "none" (`wirespeed list classifiers`).
    #[arg(long, default_value = "all")]
    pub(crate) classifiers: String,
    /// Flow statistics families to add to every record, comma-separated: `dist` (packet size
    /// and inter-arrival min/mean/max/std and TCP flag counts per direction), `tcp`
    /// (retransmissions, out-of-order and duplicate segments, RTT, SYN options, Zeek's history
    /// and conn_state; docs/SCHEMA.md), `entropy` (the payload entropy nDPI's Susp Entropy risk
    /// reads: up to four payloads a flow are measured; without it no flow gets that risk).
    #[arg(long, value_delimiter = ',')]
    pub(crate) stats: Vec<String>,
    /// Flow table capacity (flows held at once; memory is reserved for this many).
    #[arg(long, default_value_t = 1 << 20)]
    pub(crate) max_flows: usize,
    /// Seed of the run's secret hash keys (which worker takes each flow, the fragment tables'
    /// sets), for reproducible tests: by default they are drawn afresh each run, so that
    /// nobody can aim packets at one worker. Records never depend on it.
    #[arg(long, value_name = "N")]
    pub(crate) dispatch_seed: Option<u64>,
    /// TCP idle timeout, seconds of capture time, or `inf` for none (files: a day by default, one
    /// flow per 5-tuple for a typical capture, as nDPI counts; live: 300, Tstat's choice).
    #[arg(long)]
    pub(crate) tcp_timeout: Option<f64>,
    /// UDP idle timeout, seconds or `inf` (files: a day; live: 120).
    #[arg(long)]
    pub(crate) udp_timeout: Option<f64>,
    /// Idle timeout of other transports (ICMP, SCTP, ...), seconds or `inf` (files: a day; live: 60).
    #[arg(long)]
    pub(crate) other_timeout: Option<f64>,
    /// How long a TCP flow closed by FIN or RST lingers for trailing packets, seconds.
    #[arg(long, default_value_t = 10.0)]
    pub(crate) closed_timeout: f64,
    /// Active timeout, seconds or `inf`: a flow open this long gets an interim record
    /// (`end_reason` `active`, counters cumulative since the flow's start, the same `flow_id` as
    /// its final record), and another each time as much more passes, at its next packet (live:
    /// a quiet flow's at the sweep too), so a crash loses at most this much of a long flow
    /// (files: inf; live: 120, NetFlow's and Tstat's convention; docs/SCHEMA.md).
    #[arg(long)]
    pub(crate) active_timeout: Option<f64>,
    /// Which flows tunnelled packets (GRE, VXLAN, Geneve, GTP-U, CAPWAP, Teredo, AYIYA,
    /// IP-in-IP) count in: `inner`, the flow the tunnel carries; `outer`, the tunnel's own
    /// (outermost headers); `both`, each in both, the inner flow's record naming its outer
    /// flow's id in `tunnel_parent` (as Zeek's conn.log; `classify` only).
    #[arg(long, value_enum, default_value = "inner", value_name = "MODE")]
    pub(crate) tunnels: TunnelMode,
    /// `--tunnels outer` (the older spelling).
    #[arg(long, hide = true, conflicts_with = "tunnels")]
    pub(crate) no_tunnels: bool,
    /// Packets per batch.
    #[arg(long, default_value_t = 128)]
    pub(crate) batch: usize,
    /// Payload-inspection contexts per worker: flows inspected (or holding their metadata for
    /// the record) at once, about 1 KiB each, allocated as flows need them. A flow that starts
    /// while all are taken takes the context of a flow that has held one for
    /// `--dpi-reclaim-after` with nothing decided, else is not inspected (named by port, owner
    /// or model only; the summary counts both): raise it for links with more open flows a
    /// worker than this. Which flows a full pool leaves out depends on which worker each flow
    /// goes to (as `--max-flows`'s evictions do): with more than one worker, on the run's
    /// dispatch key.
    #[arg(long, default_value_t = 1 << 16, value_name = "N")]
    pub(crate) dpi_contexts: usize,
    /// With every payload-inspection context taken, a new flow takes the context of a flow
    /// that has held one for this many milliseconds (capture time, from its first inspected
    /// packet) and of which inspection has decided and kept nothing (no protocol claimed it,
    /// no metadata): that flow is inspected no further. Without it a flood of flows no
    /// inspector can name (a scan, junk datagrams) holds every context until those flows time
    /// out, and no flow starting meanwhile is inspected. 0: never take one.
    #[arg(long, default_value_t = 1000, value_name = "MS")]
    pub(crate) dpi_reclaim_after: u64,
    #[command(flatten)]
    pub(crate) files: RuleArgs,
    /// Host Cache (seed 002): the utility U = x·p (flows of the end-point's majority label in a
    /// window) an end-point needs to become a rule.
    #[arg(long, default_value_t = 10, value_name = "U")]
    pub(crate) host_cache_uth: u32,
    /// Host Cache: length of a measurement window, seconds of capture time.
    #[arg(long, default_value_t = 30.0, value_name = "S")]
    pub(crate) host_cache_window: f64,
    /// Host Cache: most rules held (H); the top H by utility stay.
    #[arg(long, default_value_t = 2048, value_name = "H")]
    pub(crate) host_cache_capacity: usize,
    /// Host Cache: a rule lives this long from its admission, seconds, however well it does.
    #[arg(long, default_value_t = 3600.0, value_name = "S")]
    pub(crate) host_cache_ttl: f64,
    /// DNS-learned addresses: most held (the address answered longest ago goes first).
    #[arg(long, default_value_t = 1 << 16, value_name = "N")]
    pub(crate) dns_cache_capacity: usize,
    /// What flows teach (DNS answers, payload verdicts) is shared with every worker at most
    /// this often, seconds of capture time: a flow starting in one such epoch is named by what
    /// flows taught before it began, with 1 worker as with many.
    #[arg(long, default_value_t = 1.0, value_name = "S")]
    pub(crate) learn_epoch: f64,
    /// The statistical model learns from the link (issue 38 item 3): flows payload inspection
    /// labels with one of the model's classes are added to the model's counts (the shipped
    /// model's are the prior) at the learning epochs, and the statistical classifier asks that
    /// model; what a capture file taught is forgotten at its end.
    #[arg(long)]
    pub(crate) learn_stats: bool,
    /// `--learn-stats`: each link flow counts this many times against the prior's flows.
    #[arg(long, default_value_t = wirespeed_engine::learn::LearnConfig::LINK_WEIGHT, value_name = "W")]
    pub(crate) learn_stats_weight: u32,
    /// Also write one JSON line per DNS query/answer, HTTP request/response and TLS handshake
    /// to FILE (`-`: standard output), each with its flow's `flow_id` (docs/EVENTS.md).
    #[arg(long, value_name = "FILE")]
    pub(crate) events: Option<PathBuf>,
}

impl RuleArgs {
    /// The files these options read (rules, lists, model, signatures, patterns).
    pub(crate) fn inputs(&self) -> Vec<&Path> {
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
}

impl EngineArgs {
    /// The files these options read (rules, lists, model, signatures, patterns).
    pub(crate) fn inputs(&self) -> Vec<&Path> {
        self.files.inputs()
    }

    /// The outputs these options write, with the option that names each.
    pub(crate) fn outputs(&self) -> Vec<(&'static str, &Path)> {
        self.events
            .as_deref()
            .map(|p| ("--events", p))
            .into_iter()
            .collect()
    }

    /// `--tunnels`, with `--no-tunnels` its older spelling of `outer`.
    pub(crate) fn tunnel_mode(&self) -> TunnelMode {
        if self.no_tunnels {
            TunnelMode::Outer
        } else {
            self.tunnels
        }
    }

    /// The columns of the statistics families `--stats` asks for and of `--tunnels both`, and
    /// no others.
    pub(crate) fn stats_columns(&self) -> Result<Columns, String> {
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
    pub(crate) fn stats_families(&self) -> Result<(bool, bool, bool), String> {
        wirespeed_engine::stats_families(self.stats.iter().map(String::as_str))
            .map_err(|other| format!("--stats {other:?}: the families are: dist, tcp, entropy"))
    }
}

#[derive(Args, Clone)]
pub(crate) struct ParallelArgs {
    /// Worker threads, each with its own flow table; flows are spread by a symmetric hash.
    /// 1 runs today's single-thread pipeline with no reader thread. Default: the number of cores.
    #[arg(long)]
    pub(crate) workers: Option<usize>,
    /// Pin worker i to core i mod cores.
    #[arg(long)]
    pub(crate) pin: bool,
    /// Buffer between the reader and the workers, MiB (counted as 2 KiB packet slots).
    #[arg(long, default_value_t = 64)]
    pub(crate) buffer_mb: usize,
    /// Capture files: feed the workers from a reader thread through the buffer, as live
    /// capture does, instead of the workers taking turns scanning the file (the default).
    #[arg(long)]
    pub(crate) reader_thread: bool,
}

/// The help of `--columns` (classify, live, inline).
pub(crate) const COLUMNS_HELP: &str = "Keep only these columns of the record, comma-separated \
     (names as in docs/SCHEMA.md: `flow_id,src_ip,src_port,dst_ip,dst_port,l4,proto`), in the \
     record's own order whatever the order given (JSON keys, CSV header, Parquet columns). What no kept \
     column needs is not computed: the risks without `risks` or `risk_score`, the \
     fingerprints' hashes without `ja3c`, `ja4` or `hassh` (nor --events), the address owner \
     without `ip_owner`, `--stats` families none of whose columns is kept. Labels are the same \
     whatever is kept. An optional group's columns need its option (`--features`, \
     `--community-id`, `--stats dist|tcp`, `--tunnels both`). Not with --ipfix or --kafka \
     (fixed schemas)";

/// `--columns LIST` over the columns `cols` selects: `cols` keeping only those. An unknown
/// name, or one of an optional group `cols` does not ask for, is an error naming it; so is a
/// list at all when the run also writes to a sink of fixed schema (`fixed_sinks`: --ipfix,
/// --kafka), the error naming the `formats` that take one.
pub(crate) fn keep_columns(
    list: Option<&str>,
    cols: Columns,
    fixed_sinks: bool,
    formats: &str,
) -> Result<Columns, String> {
    let Some(list) = list else {
        return Ok(cols);
    };
    if fixed_sinks {
        return Err(format!(
            "--columns: {formats} records only (not --ipfix, --kafka)"
        ));
    }
    let names: Vec<&str> = list
        .split(',')
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .collect();
    let valid = || {
        Columns {
            with_source: true,
            ..cols
        }
        .names()
        .join(",")
    };
    if names.is_empty() {
        return Err(format!(
            "--columns: name at least one column; the record's columns are: {}",
            valid()
        ));
    }
    for n in &names {
        if !Keep::known(n) {
            return Err(format!(
                "--columns: no column {n:?}; the record's columns (with these options) are: {}",
                valid()
            ));
        }
        if !matches!(*n, "source" | "pcap") && !cols.selects(n) {
            use wirespeed_export as x;
            let option = if x::FEATURE_FIELDS.contains(n) {
                "--features"
            } else if *n == x::COMMUNITY_FIELD {
                "--community-id"
            } else if x::DIST_FIELDS.contains(n) {
                "--stats dist"
            } else if x::TCP_FIELDS.contains(n) {
                "--stats tcp"
            } else if *n == x::TUNNEL_PARENT_FIELD {
                "--tunnels both"
            } else {
                "wirespeed inline"
            };
            return Err(format!(
                "--columns: column {n:?} is written only with {option}"
            ));
        }
    }
    let keep =
        Keep::of(names.iter().copied()).map_err(|n| format!("--columns: no column {n:?}"))?;
    let every = Columns {
        with_source: true,
        ..cols
    }
    .names();
    if every.iter().all(|n| keep.has(n)) {
        // Every column: the whole record, as without the option.
        return Ok(cols);
    }
    Ok(Columns {
        keep: Some(keep),
        ..cols
    })
}
