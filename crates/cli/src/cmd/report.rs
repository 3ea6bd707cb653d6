//! `wirespeed report`: one self-contained HTML page of what records say, from records files or
//! straight from captures (classify's engine run, its records aggregated as they end).

use super::classify::run;
use super::train;
use crate::args::{EngineArgs, ParallelArgs};
use crate::config::fits_in_memory;
use crate::{EXIT_PARTIAL, EXIT_USAGE};
use clap::Args;
use std::fs::File;
use std::io::{self, BufRead, BufReader, IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use wirespeed_engine::Session;
use wirespeed_report::{Config, Kind, Meta, Report, Sink};

#[derive(Args)]
#[command(after_help = "\
Each input's kind is told by its content, never its name: pcap or pcapng magic (or gzip, zstd, \
xz) is a capture, classified with the same options and engine as `classify`; `PAR1` is \
Parquet records as `classify --format parquet` writes (a build with the cargo feature \
`parquet`; without it they are refused, naming the feature); a first non-blank \
`{` (or an empty file) is JSON lines as `classify --format json` writes; a first line of text \
with a comma is CSV with a header, as `classify --format csv` writes. Records are read by \
column name: unknown columns are ignored, a missing required one is refused by name \
(src_ip, dst_ip, first_ts, last_ts, c2s_pkts, c2s_bytes, s2c_pkts, s2c_bytes, app). Interim \
records (end_reason `active`) are skipped.

The page is bounded whatever the input: totals are exact; top tables of --top rows; hosts and \
conversations from a Space-Saving summary of --heavy keys (exact, and said so, while the \
distinct keys fit); traffic over --buckets time buckets of the capture's own clock; a flow \
table of the --rows largest flows by bytes.")]
pub(crate) struct ReportArgs {
    /// Records files (JSON lines, CSV) or captures (pcap, pcapng), told apart by content; a
    /// directory stands for the captures in it (records files are named one by one); `-`:
    /// records on standard input.
    #[arg(required = true)]
    inputs: Vec<PathBuf>,
    /// The HTML file to write.
    #[arg(short, long)]
    output: PathBuf,
    /// Rows of each top table (applications, hosts, conversations...).
    #[arg(long, default_value_t = 20, value_name = "N")]
    top: usize,
    /// Flows in the page's table: the largest by bytes (totals count every flow).
    #[arg(long, default_value_t = 5000, value_name = "N")]
    rows: usize,
    /// Time buckets of the traffic chart.
    #[arg(long, default_value_t = 120, value_name = "N")]
    buckets: usize,
    /// Keys the host and conversation summaries hold (Space-Saving capacity): past it their
    /// counts are approximate, and the page says so.
    #[arg(long, default_value_t = 10_000, value_name = "N")]
    heavy: usize,
    /// No run summary on standard error.
    #[arg(short, long)]
    quiet: bool,
    #[command(flatten)]
    engine: EngineArgs,
    #[command(flatten)]
    par: ParallelArgs,
}

/// The first bytes of `p` (up to 4 KiB).
fn head(p: &Path) -> io::Result<Vec<u8>> {
    let mut h = Vec::with_capacity(4096);
    File::open(p)?.take(4096).read_to_end(&mut h)?;
    Ok(h)
}

pub(crate) fn report(mut a: ReportArgs) -> Result<ExitCode, String> {
    if a.buckets < 2 || a.heavy == 0 || a.top == 0 {
        return Err("--buckets must be at least 2, --heavy and --top at least 1".into());
    }
    if a.inputs.iter().any(|p| p.as_os_str() == "-") && a.inputs.len() > 1 {
        return Err("`-` (records on standard input) must be the only input".into());
    }
    let stdin = a.inputs.iter().any(|p| p.as_os_str() == "-");
    if !stdin {
        a.inputs = train::expand(&a.inputs)?;
    }
    let mut inputs: Vec<&Path> = a.inputs.iter().map(PathBuf::as_path).collect();
    inputs.extend(a.engine.inputs());
    crate::outputs::check_apart(&a.engine, Some(&a.output), None, &inputs)?;
    let cfg = Config {
        top: a.top,
        heavy: a.heavy,
        buckets: a.buckets,
        rows: a.rows,
        ..Config::default()
    };
    let mut report = Report::new(cfg);

    // Records first, each by its content; captures go to the engine together.
    let mut captures = Vec::new();
    if stdin {
        let mut r = BufReader::with_capacity(1 << 16, io::stdin().lock());
        let kind = wirespeed_report::detect(r.fill_buf().map_err(|e| format!("stdin: {e}"))?);
        if kind == Kind::Capture {
            return Err("standard input holds a capture: give captures as files".into());
        }
        wirespeed_report::read_records("standard input", kind, r, &mut report)
            .map_err(|e| e.to_string())?;
    }
    for p in a.inputs.iter().filter(|p| p.as_os_str() != "-") {
        let h = head(p).map_err(|e| format!("cannot read {}: {e}", p.display()))?;
        match wirespeed_report::detect(&h) {
            Kind::Capture => captures.push(p.clone()),
            #[cfg(feature = "parquet")]
            Kind::Parquet => {
                let f = File::open(p).map_err(|e| format!("cannot read {}: {e}", p.display()))?;
                wirespeed_report::read_parquet(&p.display().to_string(), f, |r| report.add(r))
                    .map_err(|e| e.to_string())?;
            }
            kind => {
                let f = File::open(p).map_err(|e| format!("cannot read {}: {e}", p.display()))?;
                wirespeed_report::read_records(&p.display().to_string(), kind, f, &mut report)
                    .map_err(|e| e.to_string())?;
            }
        }
    }

    let mut code = ExitCode::SUCCESS;
    if !captures.is_empty() {
        let ecfg = a.engine.config()?;
        let par = a.par.config_for(&a.engine)?;
        fits_in_memory(&ecfg, par.workers, a.engine.max_flows)?;
        // Each worker aggregates its own records as they end (no record is formatted or
        // held); the workers' reports are merged once the run is over.
        let mut session = Session::new(ecfg, par, |_| Sink::new(cfg), true);
        let progress = !a.quiet && io::stderr().is_terminal();
        let not_captures =
            run(&mut session, &captures, progress).map_err(|e| format!("records: {e}"))?;
        let (summary, sinks) = session.finish().map_err(|e| format!("records: {e}"))?;
        for s in sinks {
            report.merge(s.report);
        }
        let failed: Vec<_> = summary.files.iter().filter_map(|f| f.2.as_ref()).collect();
        if !a.quiet {
            eprint!("{}", summary.render(false));
        } else {
            for e in &failed {
                eprintln!("wirespeed: input error: {e}");
            }
        }
        if not_captures > 0 {
            code = ExitCode::from(EXIT_USAGE);
        } else if !failed.is_empty() {
            code = ExitCode::from(EXIT_PARTIAL);
        }
    }

    let meta = Meta {
        inputs: a
            .inputs
            .iter()
            .map(|p| {
                p.file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_else(|| p.display().to_string())
            })
            .collect(),
        generator: format!("wirespeed {} report", env!("CARGO_PKG_VERSION")),
    };
    let rep = &report;
    let page = wirespeed_report::render(rep, &meta);
    let write = || -> io::Result<()> {
        let mut f = io::BufWriter::new(File::create(&a.output)?);
        f.write_all(page.as_bytes())?;
        f.into_inner().map_err(|e| e.into_error())?.sync_all()
    };
    write().map_err(|e| format!("cannot write {}: {e}", a.output.display()))?;
    if !a.quiet {
        eprintln!(
            "report: {} flows, {} bytes, written to {} ({} bytes)",
            rep.total.flows,
            rep.total.bytes,
            a.output.display(),
            page.len()
        );
    }
    Ok(code)
}
