//! `wirespeed live`: classify the flows of live interfaces (AF_PACKET rings).

use crate::args::{EngineArgs, ParallelArgs, TextFormat};
use crate::config::{duration_arg, fits_in_memory, stop_flag};
use crate::outputs::{self, serve_metrics, LiveOutputs};
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;
use wirespeed_engine::{EngineConfig, Summary};
use wirespeed_export::Columns;
use wirespeed_live::metrics::RunStats;

#[derive(Args)]
pub(crate) struct LiveArgs {
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
    /// e.g. 127.0.0.1:9477, and its live page at http://ADDR:PORT/ (throughput by application,
    /// active flows, drops, the newest risky flows, inline rules' counters; redrawn every
    /// second from /live.json). Read-only, on that address alone; `--http` is the same option
    /// (docs/METRICS.md).
    #[arg(long, visible_alias = "http", value_name = "ADDR:PORT")]
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
    #[arg(long, value_name = "LIST", help = "Keep only these record columns, in the record's order (more with --help)", long_help = crate::args::COLUMNS_HELP)]
    columns: Option<String>,
    #[command(flatten)]
    engine: EngineArgs,
    #[command(flatten)]
    par: ParallelArgs,
}

pub(crate) fn live(a: LiveArgs) -> Result<ExitCode, String> {
    outputs::check_apart(
        &a.engine,
        a.output.as_deref(),
        a.ipfix.as_deref(),
        &a.engine.inputs(),
    )?;
    let cols = crate::args::keep_columns(
        a.columns.as_deref(),
        Columns {
            features: a.features,
            community: a.community_id,
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

/// The run, with the engine's configuration `cfg`.
fn run(a: &LiveArgs, cfg: EngineConfig, cols: Columns) -> Result<ExitCode, String> {
    let par = a.par.config_for(&a.engine)?;
    fits_in_memory(&cfg, par.workers, a.engine.max_flows)?;
    let filter = match &a.filter {
        Some(f) => Some(wirespeed_live::bpf::compile(f)?),
        None => None,
    };
    let lc = wirespeed_live::LiveConfig {
        ifaces: a.interface.clone(),
        workers: par.workers,
        pin: par.pin,
        buffer_mb: par.buffer_mb,
        filter,
        user: a.user.clone(),
        status_every: duration_arg(a.status, "status")?,
        duration: a
            .duration
            .map(|d| duration_arg(d, "duration"))
            .transpose()?,
        metrics: a.metrics.map(|_| RunStats::live(cfg.rules.clone())),
        act: None,
        source: None,
        engine: cfg,
    };
    let _metrics = serve_metrics(a.metrics, lc.metrics.as_ref(), a.quiet)?;
    let stop = stop_flag()?;
    let (quiet, verbose) = (a.quiet, a.verbose);
    let outs = LiveOutputs::start(
        a.output.as_deref(),
        a.format.into(),
        cols,
        a.ipfix.as_deref(),
        a.kafka.as_deref(),
        &stop,
        lc.metrics.as_ref(),
    )?;
    let mut opened = outs.opener();
    let run = wirespeed_live::run(&lc, outs.sink(), stop, &mut opened, &mut |line| {
        if !quiet {
            eprintln!("{line}");
        }
    });
    let end = outs.finish(&run, quiet)?;
    // A failed run (an interface gone) still wrote the records of its flows: written above.
    let o = match run {
        Ok(o) => o,
        Err(e) => {
            if end.closed.lost > 0 {
                let lost = end.closed.lost;
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
            end.closed.dropped, end.closed.dropped_bytes
        );
    }
    end.exit()
}
