//! `wirespeed inline`: act on the label inline, by a policy: on packets from NFQUEUE, or
//! (`--datapath ebpf`, [`ebpf`]) on a copy of the traffic, a tc program enforcing each flow's
//! final action from a map.

use crate::args::{EngineArgs, TextFormat};
use crate::config::{duration_arg, fits_in_memory, stop_flag};
use crate::outputs::{self, serve_metrics, LiveOutputs};
use clap::{Args, ValueEnum};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use wirespeed_engine::{EngineConfig, Summary};
use wirespeed_export::Columns;
use wirespeed_live::metrics::RunStats;

mod ebpf;

/// Where the policy's verdicts are carried out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum DatapathArg {
    /// Every packet through this process (NFQUEUE, `--queue`) until its flow's action is
    /// final, then the connection's mark and the rules of `--print-rules`.
    Nfqueue,
    /// A tc program on the ingress of `--interface` passes, drops or marks each flow by a map
    /// this process writes once the flow's action is final; this process classifies a copy
    /// of the traffic (AF_PACKET, as `live`). Needs a build with `--features ebpf`, root, and
    /// a policy without rate limits.
    Ebpf,
}

/// `--copy`: which packets the kernel copies to this process with `--datapath ebpf`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum CopyArg {
    /// Every packet the interfaces receive (records count every packet).
    All,
    /// Packets of flows not decided yet; of a decided flow only TCP SYN, FIN and RST and one
    /// packet a second (an eBPF socket filter on the capture sockets reads the verdict map).
    Undecided,
}

/// `--capture`: how the packets reach this process with `--datapath ebpf`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum CaptureArg {
    /// AF_PACKET sockets on the interfaces (as `live`).
    AfPacket,
    /// The verdict program copies them into a BPF ring buffer this process reads.
    Ringbuf,
}

#[derive(Args)]
pub(crate) struct InlineArgs {
    /// Where verdicts are carried out: `nfqueue` (packets from `--queue`), or `ebpf` (a tc
    /// program on the ingress of `--interface`, filled by this process as flows' actions
    /// become final; packets before that pass; rate limits refused; docs/INLINE.md).
    #[arg(long, value_enum, default_value = "nfqueue")]
    datapath: DatapathArg,
    /// With `--datapath ebpf`: the interfaces (comma-separated, or the option repeated) whose
    /// ingress the program guards and whose received traffic is classified: on a router, every
    /// interface traffic arrives on. A policy's rate limits put an HTB qdisc at the root of
    /// their egress.
    #[arg(short, long, value_delimiter = ',', value_name = "IF")]
    interface: Vec<String>,
    /// With `--datapath ebpf`: which packets the kernel copies to this process. `all`: every
    /// packet the interfaces receive. `undecided`: once a flow's verdict is in the map, only
    /// its TCP SYN, FIN and RST and one packet a second (which keeps the flow open here until
    /// it ends); the program still enforces every packet, and the copies no longer cost the
    /// forwarding path. A decided flow's record then counts what was copied, as with NFQUEUE's
    /// hand-off (`"bound": true`); the summary counts what was not (docs/INLINE.md).
    #[arg(long, value_enum, default_value = "all")]
    copy: CopyArg,
    /// With `--datapath ebpf`: how the copies reach this process. `af-packet`: packet sockets
    /// on the interfaces (their tap runs for every packet, copied or not). `ringbuf`: the
    /// verdict program, which looks every packet up anyway, copies the ones `--copy` asks for
    /// (their first 2,048 bytes) into a ring buffer read every millisecond; nothing else
    /// touches the forwarding path (docs/INLINE.md).
    #[arg(long, value_enum, default_value = "af-packet")]
    capture: CaptureArg,
    /// With `--datapath ebpf`: the program applies a verdict other than pass only while this
    /// process's heartbeat (written every few milliseconds by a thread of its own) is at most
    /// this many milliseconds old, so that when the process is killed, stopped or hung its
    /// flows pass within about that time. 0: verdicts hold until the program is detached
    /// (after `kill -9`, when the kernel closes the dead process's descriptors: 42-127 ms
    /// measured here, docs/INLINE.md).
    #[arg(long, default_value_t = 30, value_name = "MS")]
    fail_open_ms: u64,
    /// NFQUEUE queue number, or a range `A:B` (one worker per queue; the kernel's
    /// `--queue-balance` spreads connections over them). Needed by `--datapath nfqueue`.
    #[arg(long)]
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
    /// e.g. 127.0.0.1:9477, and its live page at http://ADDR:PORT/ (throughput by application,
    /// active flows, drops, the newest risky flows, inline rules' counters; redrawn every
    /// second from /live.json). Read-only, on that address alone; `--http` is the same option
    /// (docs/METRICS.md).
    #[arg(long, visible_alias = "http", value_name = "ADDR:PORT")]
    metrics: Option<std::net::SocketAddr>,
    /// Also export the records as IPFIX, as `live --ipfix` does.
    #[arg(long, value_name = "TARGET")]
    ipfix: Option<String>,
    /// Also send every record to a Kafka topic, as `live --kafka` does.
    #[arg(long, value_name = "BROKERS/TOPIC")]
    kafka: Option<String>,
    #[arg(long, value_name = "LIST", help = "Keep only these record columns, in the record's order (more with --help)", long_help = crate::args::COLUMNS_HELP)]
    columns: Option<String>,
    #[command(flatten)]
    engine: EngineArgs,
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

/// SIGHUP asked for a reload (`reload` set): the policy read again from `path` and, when
/// `check` accepts it, put in `cell`; either way the status line says what happened (a policy
/// that cannot be read or is refused leaves the old one).
fn reload_policy(
    reload: &AtomicBool,
    path: &Path,
    labels: &wirespeed_classify::Labels,
    cell: &wirespeed_act::PolicyCell,
    check: &dyn Fn(&wirespeed_act::Policy) -> Result<(), String>,
    status: &dyn Fn(&str),
) {
    if !reload.swap(false, Ordering::Relaxed) {
        return;
    }
    match read_policy(path, labels).and_then(|p| check(&p).map(|()| p)) {
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

pub(crate) fn inline(a: InlineArgs) -> Result<ExitCode, String> {
    let mut inputs = a.engine.inputs();
    inputs.push(&a.policy);
    outputs::check_apart(&a.engine, a.output.as_deref(), a.ipfix.as_deref(), &inputs)?;
    // A live link's timeouts, as `live`.
    let cols = crate::args::keep_columns(
        a.columns.as_deref(),
        Columns {
            action: true,
            ..a.engine.stats_columns()?
        },
        a.ipfix.is_some() || a.kafka.is_some(),
        "JSON and CSV",
    )?;
    let (mut cfg, events) = a.engine.live_config()?;
    cfg.compute_for(&cols);
    let r = run(&a, cfg, cols);
    // The run is over, its workers and their handles to the `--events` output gone: close it.
    events.close().and(r)
}

/// The run (or `--check`, `--print-rules`), with the engine's configuration `cfg`.
fn run(a: &InlineArgs, cfg: EngineConfig, cols: Columns) -> Result<ExitCode, String> {
    let policy = read_policy(&a.policy, cfg.rules.labels())?;
    let bypass = !a.no_bypass;
    if a.check {
        if a.datapath == DatapathArg::Ebpf {
            ebpf::enforceable(&policy)?;
        }
        println!("rule\taction");
        for r in &policy.rules {
            println!("{}\t{}", r.name, r.action);
        }
        println!("unclassified\t{}", policy.unclassified);
        println!("default\t{}", policy.default);
        return Ok(ExitCode::SUCCESS);
    }
    match a.datapath {
        DatapathArg::Ebpf => {
            for (given, what) in [
                (a.queue.is_some(), "--queue"),
                (a.print_rules, "--print-rules"),
                (a.no_bypass, "--no-bypass"),
            ] {
                if given {
                    return Err(format!(
                        "{what} is for --datapath nfqueue; --datapath ebpf takes --interface"
                    ));
                }
            }
            if a.interface.is_empty() {
                return Err("--datapath ebpf needs --interface IF (one or more)".into());
            }
            return ebpf::run(a, cfg, cols, policy);
        }
        DatapathArg::Nfqueue => {
            if !a.interface.is_empty() {
                return Err(
                    "--interface is for --datapath ebpf; --datapath nfqueue takes --queue".into(),
                );
            }
            if a.capture != CaptureArg::AfPacket {
                return Err("--capture is for --datapath ebpf".into());
            }
            if a.fail_open_ms != 30 {
                return Err(
                    "--fail-open-ms is for --datapath ebpf (NFQUEUE's queue fails open by                      itself when this process goes)"
                        .into(),
                );
            }
            if a.copy != CopyArg::All {
                return Err(
                    "--copy is for --datapath ebpf (NFQUEUE hands decided flows to \
                            the kernel by their connection mark)"
                        .into(),
                );
            }
            if a.queue.is_none() {
                return Err("--datapath nfqueue needs --queue N (or A:B)".into());
            }
        }
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
        status_every: duration_arg(a.status, "status")?,
        duration: a
            .duration
            .map(|d| duration_arg(d, "duration"))
            .transpose()?,
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
    let quiet = a.quiet;
    let outs = LiveOutputs::start(
        a.output.as_deref(),
        a.format.into(),
        cols,
        a.ipfix.as_deref(),
        a.kafka.as_deref(),
        &stop,
        ic.metrics.as_ref(),
    )?;
    let mut opened = outs.opener();
    let policy_path = a.policy.clone();
    let status = |line: &str| {
        if !quiet {
            eprintln!("{line}");
        }
    };
    let mut tick = || {
        reload_policy(
            &reload,
            &policy_path,
            labels.labels(),
            &cell,
            &|_| Ok(()),
            &status,
        )
    };
    let run = wirespeed_live::inline::run(
        &ic,
        outs.sink(),
        stop,
        &mut opened,
        &mut |l| status(l),
        &mut tick,
    );
    let end = outs.finish(&run, a.quiet)?;
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
    end.exit()
}
