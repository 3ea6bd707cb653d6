//! `wirespeed`: classify every flow of capture files, generate synthetic traces, benchmark.

use clap::{Args, Parser, Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use std::fs::File;
use std::io::{self, BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;
use wirespeed_classify::ClassifierSet;
use wirespeed_engine::{gen, run_file, EngineConfig, Summary, Worker};
use wirespeed_export::{CsvWriter, JsonLinesWriter, RecordSink};
use wirespeed_flow::{FlowConfig, Timeouts};
use wirespeed_wire::DecodeConfig;

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
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
enum Format {
    /// One JSON object per line.
    Json,
    /// CSV with a header line.
    Csv,
}

#[derive(Args, Clone)]
struct EngineArgs {
    /// Classifiers to run, in any order: port, dpi (more to come: stats), "all" or "none".
    #[arg(long, default_value = "all")]
    classifiers: String,
    /// Flow table capacity (flows held at once; memory is reserved for this many).
    #[arg(long, default_value_t = 1 << 20)]
    max_flows: usize,
    /// TCP idle timeout, seconds of capture time (a day by default: one flow per 5-tuple for
    /// a typical capture, as nDPI counts; 300 is Tstat's choice).
    #[arg(long, default_value_t = 86400.0)]
    tcp_timeout: f64,
    /// UDP idle timeout, seconds.
    #[arg(long, default_value_t = 86400.0)]
    udp_timeout: f64,
    /// Idle timeout of other transports (ICMP, SCTP, ...), seconds.
    #[arg(long, default_value_t = 86400.0)]
    other_timeout: f64,
    /// How long a TCP flow closed by FIN or RST lingers for trailing packets, seconds.
    #[arg(long, default_value_t = 10.0)]
    closed_timeout: f64,
    /// Count tunnel packets (GRE, VXLAN, GTP-U, IP-in-IP) as the outer flow instead of the inner.
    #[arg(long)]
    no_tunnels: bool,
    /// Packets per batch.
    #[arg(long, default_value_t = 128)]
    batch: usize,
    /// More byte signatures for payload inspection, in the format of crates/dpi/signatures.txt;
    /// they are tried after the built-in ones.
    #[arg(long, value_name = "FILE")]
    signatures: Option<PathBuf>,
}

impl EngineArgs {
    fn config(&self) -> Result<EngineConfig, String> {
        if let Some(p) = &self.signatures {
            let user = std::fs::read_to_string(p)
                .map_err(|e| format!("cannot read {}: {e}", p.display()))?;
            // Checked alone first, so errors give the user's line numbers.
            wirespeed_dpi::proto::sig::SigSet::parse(&user, 0)
                .map_err(|e| format!("{}: {e}", p.display()))?;
            let all = format!("{}\n{user}", wirespeed_dpi::proto::sig::BUILTIN);
            wirespeed_dpi::proto::sig::install(&all)
                .map_err(|e| format!("{}: {e}", p.display()))?;
        }
        let secs = |s: f64, what: &str| {
            if s.is_finite() && s > 0.0 {
                Ok((s * 1e9) as u64)
            } else {
                Err(format!("--{what} must be a positive number of seconds"))
            }
        };
        // Memory is reserved for the whole table at start (~152 bytes a flow): refuse sizes that
        // would take the machine down rather than fail later.
        const MAX_FLOWS: usize = 1 << 28;
        if self.max_flows == 0 || self.max_flows > MAX_FLOWS {
            return Err(format!(
                "--max-flows must be between 1 and {MAX_FLOWS} (about 152 bytes of memory a flow)"
            ));
        }
        if self.batch == 0 || self.batch > 4096 {
            return Err("--batch must be between 1 and 4096".into());
        }
        Ok(EngineConfig {
            flow: FlowConfig {
                capacity: self.max_flows,
                timeouts: Timeouts {
                    tcp_ns: secs(self.tcp_timeout, "tcp-timeout")?,
                    udp_ns: secs(self.udp_timeout, "udp-timeout")?,
                    other_ns: secs(self.other_timeout, "other-timeout")?,
                    closed_ns: secs(self.closed_timeout, "closed-timeout")?,
                },
                ..FlowConfig::default()
            },
            decode: DecodeConfig {
                decode_tunnels: !self.no_tunnels,
            },
            classifiers: ClassifierSet::parse(&self.classifiers).map_err(|e| e.to_string())?,
            batch_size: self.batch,
            ..EngineConfig::default()
        })
    }
}

#[derive(Args)]
struct ClassifyArgs {
    /// Capture files (pcap or pcapng).
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Record format.
    #[arg(long, value_enum, default_value = "json")]
    format: Format,
    /// Write records here instead of standard output.
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Add `source` and `pcap` to every record even for a single input.
    #[arg(long)]
    with_source: bool,
    /// No run summary on standard error.
    #[arg(short, long)]
    quiet: bool,
    /// No progress bar (it is shown only when standard error is a terminal anyway).
    #[arg(long)]
    no_progress: bool,
    #[command(flatten)]
    engine: EngineArgs,
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
    /// Output pcap file.
    #[arg(short, long)]
    output: PathBuf,
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
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let r = match cli.cmd {
        Cmd::Classify(a) => classify(a),
        Cmd::Gen(a) => gen_cmd(a),
        Cmd::Bench(a) => bench(a),
    };
    match r {
        Ok(code) => code,
        Err(e) => {
            eprintln!("wirespeed: error: {e}");
            ExitCode::from(2)
        }
    }
}

fn open_out(path: Option<&Path>) -> io::Result<Box<dyn Write>> {
    Ok(match path {
        Some(p) => Box::new(File::create(p).map_err(|e| {
            io::Error::new(e.kind(), format!("cannot create {}: {e}", p.display()))
        })?),
        None => Box::new(io::stdout().lock()),
    })
}

fn sink(format: Format, out: Box<dyn Write>, with_source: bool) -> Box<dyn RecordSink> {
    match format {
        Format::Json => Box::new(JsonLinesWriter::new(out, with_source)),
        Format::Csv => Box::new(CsvWriter::new(out, with_source)),
    }
}

/// Run `files` through one worker; the summary and whether every input was read to its end.
fn run<S: RecordSink>(
    worker: &mut Worker<S>,
    files: &[PathBuf],
    show_progress: bool,
) -> io::Result<Summary> {
    let start = Instant::now();
    let mut summary = Summary::default();
    for path in files {
        let bar = if show_progress {
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
            Some(b)
        } else {
            None
        };
        let mut last = 0u64;
        let mut progress = |pos: u64, _total: u64| {
            // Update the bar at most every 4 MiB: cheap, and smooth enough.
            if let Some(b) = &bar {
                if pos - last.min(pos) >= 4 << 20 || pos == _total {
                    b.set_position(pos);
                    last = pos;
                }
            }
        };
        let outcome = run_file(worker, path, &mut progress)?;
        if let Some(b) = bar {
            b.finish_and_clear();
        }
        summary.files.push((
            path.display().to_string(),
            outcome.packets,
            outcome.error.map(|e| e.to_string()),
        ));
    }
    summary.counters = worker.counters();
    summary.apps = worker.apps().clone();
    summary.elapsed_s = start.elapsed().as_secs_f64();
    Ok(summary)
}

fn classify(a: ClassifyArgs) -> Result<ExitCode, String> {
    let cfg = a.engine.config()?;
    let with_source = a.with_source || a.files.len() > 1;
    let out = open_out(a.output.as_deref()).map_err(|e| e.to_string())?;
    let mut worker = Worker::new(cfg, sink(a.format, out, with_source), with_source);
    let progress = !a.no_progress && !a.quiet && io::stderr().is_terminal();
    let summary =
        run(&mut worker, &a.files, progress).map_err(|e| format!("writing records: {e}"))?;
    worker
        .finish()
        .map_err(|e| format!("writing records: {e}"))?;
    let failed: Vec<_> = summary.files.iter().filter_map(|f| f.2.as_ref()).collect();
    if !a.quiet {
        eprint!("{summary}");
    } else {
        for e in &failed {
            eprintln!("wirespeed: input error: {e}");
        }
    }
    // Exit 1 when some input could not be read to its end (its good packets were processed).
    Ok(if failed.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn gen_cmd(a: GenArgs) -> Result<ExitCode, String> {
    let f = File::create(&a.output)
        .map_err(|e| format!("cannot create {}: {e}", a.output.display()))?;
    let w = BufWriter::with_capacity(1 << 20, f);
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
                a.output.display()
            );
        }
        Trace::Demo => {
            let (flows, _) = gen::demo(w).map_err(|e| e.to_string())?;
            eprintln!("wrote {} flows to {}", flows.len(), a.output.display());
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Peak resident set size of this process in KiB (Linux), if known.
fn peak_rss_kib() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn bench(a: BenchArgs) -> Result<ExitCode, String> {
    let cfg = a.engine.config()?;
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
    let out: Box<dyn Write> = match &a.output {
        Some(p) => open_out(Some(p)).map_err(|e| e.to_string())?,
        None => Box::new(io::sink()),
    };
    let mut worker = Worker::new(cfg, JsonLinesWriter::new(out, false), false);
    let summary = run(&mut worker, &inputs, false).map_err(|e| e.to_string())?;
    let t_run = summary.elapsed_s;
    let start = Instant::now();
    worker.finish().map_err(|e| e.to_string())?;
    let elapsed = t_run + start.elapsed().as_secs_f64();
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
