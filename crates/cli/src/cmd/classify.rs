//! `wirespeed classify`: classify the flows of capture files, one record per flow; and the
//! run over files that `bench` measures too ([`run`], [`print_dispatch`]).

use super::train;
use crate::args::{EngineArgs, Format, ParallelArgs};
use crate::config::fits_in_memory;
use crate::outputs::{
    self, ipfix_finish, ipfix_start, records_error, shared_out, shared_sink, with_exports,
};
use crate::{kafka_out, parquet_out, EXIT_PARTIAL, EXIT_USAGE};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use std::fs::File;
use std::io::{self, IsTerminal};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use wirespeed_engine::{DispatchStats, Session};
use wirespeed_export::shared::SharedWriter;
use wirespeed_export::{Columns, RecordSink};

#[derive(Args)]
pub(crate) struct ClassifyArgs {
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
    #[arg(long, value_name = "LIST", help = "Keep only these record columns, in the record's order (more with --help)", long_help = crate::args::COLUMNS_HELP)]
    columns: Option<String>,
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
pub(crate) fn run<S: RecordSink + Send>(
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

pub(crate) fn classify(mut a: ClassifyArgs) -> Result<ExitCode, String> {
    a.files = train::expand(&a.files)?;
    let mut inputs: Vec<&Path> = a.files.iter().map(PathBuf::as_path).collect();
    inputs.extend(a.engine.inputs());
    outputs::check_apart(&a.engine, a.output.as_deref(), a.ipfix.as_deref(), &inputs)?;
    let cols = crate::args::keep_columns(
        a.columns.as_deref(),
        Columns {
            features: a.features,
            community: a.community_id,
            ..a.engine.stats_columns()?
        },
        a.ipfix.is_some() || a.kafka.is_some(),
        "JSON, CSV and Parquet",
    )?;
    let mut cfg = a.engine.config()?;
    cfg.compute_for(&cols);
    let par = a.par.config_for(&a.engine)?;
    fits_in_memory(&cfg, par.workers, a.engine.max_flows)?;
    readable(&a.files)?;
    // The set of columns depends on options only, never on how many inputs there are.
    let with_source = true;
    let _ = a.with_source;
    let progress = !a.no_progress && !a.quiet && io::stderr().is_terminal();
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

/// Nanosecond counts as seconds with 3 decimals, comma-separated.
fn secs(ns: &[u64]) -> String {
    let s: Vec<String> = ns
        .iter()
        .map(|&n| format!("{:.3}", n as f64 / 1e9))
        .collect();
    s.join(", ")
}

pub(crate) fn print_dispatch(d: &DispatchStats) {
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
    if d.watched + d.unwatched > 0 {
        eprintln!(
            "ftp announcements: {} connections watched ({} not: table full), {} first payloads \
             waited for another worker ({:.3} s)",
            d.watched,
            d.unwatched,
            d.watch_waits,
            d.watch_wait_ns as f64 / 1e9
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
