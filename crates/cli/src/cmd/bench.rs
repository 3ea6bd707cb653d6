//! `wirespeed bench`: packets per second and peak memory over the worst-case trace (or given
//! files).

use super::classify::{print_dispatch, run};
use crate::args::{EngineArgs, Format, ParallelArgs};
use crate::config::fits_in_memory;
use crate::outputs::{self, shared_out, shared_sink};
use clap::Args;
use std::fs::File;
use std::io::{self, BufWriter};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;
use wirespeed_engine::{gen, Session};
use wirespeed_export::shared::SharedWriter;
use wirespeed_export::Columns;

#[derive(Args)]
pub(crate) struct BenchArgs {
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

/// Peak resident set size of this process in KiB (Linux), if known.
fn peak_rss_kib() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

pub(crate) fn bench(a: BenchArgs) -> Result<ExitCode, String> {
    let mut inputs: Vec<&Path> = a.files.iter().map(PathBuf::as_path).collect();
    inputs.extend(a.engine.inputs());
    outputs::check_apart(&a.engine, a.output.as_deref(), None, &inputs)?;
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
