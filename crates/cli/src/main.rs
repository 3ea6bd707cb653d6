//! `wirespeed`: classify every flow of capture files, generate synthetic traces, benchmark.
//!
//! This file holds the command line (`Cli`, `Cmd`), `main`, the exit codes and the `eprintln!`
//! that never panics; the argument groups several commands share are in [`args`], what they
//! make of them (the engine's configuration) in [`config`], the outputs in [`outputs`] (with
//! [`guard`], [`kafka_out`] and [`parquet_out`]), and each command in a file of [`cmd`].

use clap::{Parser, Subcommand};
use cmd::{bench, classify, gen, inline, list, live, replay, report, train};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};

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

mod args;
mod cmd;
mod config;
mod guard;
mod kafka_out;
mod outputs;
mod parquet_out;

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
    Classify(classify::ClassifyArgs),
    /// One self-contained HTML page (no network request, SVG charts) of records (JSON lines,
    /// CSV) or captures: applications, hosts, time, risks, TLS, a filterable flow table.
    Report(report::ReportArgs),
    /// Write a synthetic capture: the worst case of seed 000, a small realistic demo, or a
    /// realistic link with heavy-tailed flow sizes.
    Gen(gen::GenArgs),
    /// Measure packets per second and peak memory on the worst-case trace (or given files).
    Bench(bench::BenchArgs),
    /// Train a statistical model from captures and labels (nDPI's flows.csv shape), with a
    /// cross-validation report split by capture file.
    Train(train::TrainArgs),
    /// Classify the flows of live interfaces (AF_PACKET rings; Linux, needs CAP_NET_RAW).
    Live(live::LiveArgs),
    /// Send the packets of a capture file out of an interface.
    Replay(replay::ReplayArgs),
    /// Act on the label inline: packets from NFQUEUE are forwarded, dropped, marked (DSCP) or
    /// rate-limited by a policy of rules, or (`--datapath ebpf`) flows are passed, dropped,
    /// marked or shaped (an HTB class per rate-limit rule on the interfaces' egress) by tc
    /// programs this process fills (docs/INLINE.md; Linux, needs CAP_NET_ADMIN).
    Inline(inline::InlineArgs),
    /// Print what the classifiers know: `apps` (every application, its category and the
    /// protocols it is named over, operator files included), `protocols` (every protocol, how
    /// it is recognised, its usual ports) or `classifiers`.
    List(list::ListArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let r = match cli.cmd {
        Cmd::Classify(a) => classify::classify(a),
        Cmd::Report(a) => report::report(a),
        Cmd::Gen(a) => gen::gen_cmd(a),
        Cmd::Bench(a) => bench::bench(a),
        Cmd::Train(a) => train::train_cmd(a),
        Cmd::Live(a) => live::live(a),
        Cmd::Inline(a) => inline::inline(a),
        Cmd::Replay(a) => replay::replay(a),
        Cmd::List(a) => list::list(a),
    };
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
pub(crate) const EXIT_PARTIAL: u8 = 1;
/// Exit status of a run refused or failed: a bad option, an input missing or not a capture at
/// all, an output that cannot be written, standard error that cannot be written.
pub(crate) const EXIT_USAGE: u8 = 2;
