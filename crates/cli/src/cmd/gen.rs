//! `wirespeed gen`: write a synthetic capture (the worst case, a demo), or send it out of an
//! interface.

use super::replay::send_file;
use crate::args::PaceArgs;
use crate::outputs::open_out;
use clap::{Args, ValueEnum};
use std::io::BufWriter;
use std::path::PathBuf;
use std::process::ExitCode;
use wirespeed_engine::gen;

#[derive(Clone, Copy, ValueEnum)]
pub(crate) enum Trace {
    /// Seed 000's worst case: 64-byte frames, P packets per flow, W flows interleaved.
    WorstCase,
    /// A small realistic mix of applications and encapsulations.
    Demo,
}

#[derive(Args)]
pub(crate) struct GenArgs {
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

pub(crate) fn gen_cmd(a: GenArgs) -> Result<ExitCode, String> {
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
