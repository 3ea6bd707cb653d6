//! `wirespeed gen`: write a synthetic capture (the worst case, a demo, a heavy-tailed link), or
//! send the worst case out of an interface.

use super::replay::send_file;
use crate::args::PaceArgs;
use crate::outputs::{open_out, OutFile};
use clap::{Args, ValueEnum};
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use wirespeed_engine::gen;

#[derive(Clone, Copy, ValueEnum)]
pub(crate) enum Trace {
    /// Seed 000's worst case: 64-byte frames, P packets per flow, W flows interleaved.
    WorstCase,
    /// A small realistic mix of applications and encapsulations.
    Demo,
    /// A realistic link: flow sizes from a bounded Pareto distribution, the applications' real
    /// first packets (TLS and QUIC with SNI, HTTP, DNS, SSH, SMTP, NTP), MTU-sized bulk data;
    /// seeded, so the same seed writes the same file.
    HeavyTail,
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
    /// Worst case and heavy tail: number of flows [default: 1000000 for the worst case, 20000
    /// for the heavy tail].
    #[arg(long)]
    flows: Option<u32>,
    /// Worst case: packets per flow.
    #[arg(long, default_value_t = 5)]
    pkts: u32,
    /// Worst case and heavy tail: flows interleaved at once (memory grows with it, not with
    /// the number of flows) [default: 65536 for the worst case, 1000 for the heavy tail].
    #[arg(long, visible_alias = "concurrency")]
    window: Option<u32>,
    /// Heavy tail: seed of every random choice.
    #[arg(long, default_value_t = gen::HeavyTail::default().seed)]
    seed: u64,
    /// Heavy tail: shape α of the bounded Pareto distribution of flow sizes in packets
    /// (P(size ≥ n) falls as n^-α).
    #[arg(long, default_value_t = gen::HeavyTail::default().alpha)]
    alpha: f64,
    /// Heavy tail: fewest packets a flow (at least 2).
    #[arg(long, default_value_t = gen::HeavyTail::default().min_pkts)]
    min_pkts: u32,
    /// Heavy tail: most packets a flow.
    #[arg(long, default_value_t = gen::HeavyTail::default().max_pkts)]
    max_pkts: u32,
    /// Heavy tail: also write every flow as built, one CSV line each as it ends (5-tuple,
    /// nDPI's master and application names it was built as, its host name, packets and bytes
    /// each way): the expected result, written down by construction.
    #[arg(long, value_name = "FILE")]
    truth: Option<PathBuf>,
}

impl GenArgs {
    fn worst_case(&self) -> gen::WorstCase {
        let d = gen::WorstCase::default();
        gen::WorstCase {
            flows: self.flows.unwrap_or(d.flows),
            pkts_per_flow: self.pkts.max(1),
            window: self.window.unwrap_or(d.window).max(1),
            ..d
        }
    }

    fn heavy_tail(&self) -> gen::HeavyTail {
        let d = gen::HeavyTail::default();
        gen::HeavyTail {
            flows: self.flows.map_or(d.flows, u64::from),
            seed: self.seed,
            window: self.window.unwrap_or(d.window).max(1),
            alpha: self.alpha,
            min_pkts: self.min_pkts,
            max_pkts: self.max_pkts,
            ..d
        }
    }
}

pub(crate) fn gen_cmd(a: GenArgs) -> Result<ExitCode, String> {
    if a.truth.is_some() && !matches!(a.trace, Trace::HeavyTail) {
        return Err("--truth is for the heavy tail only".into());
    }
    if let Some(iface) = &a.to {
        if !matches!(a.trace, Trace::WorstCase) {
            return Err("--to streams the worst case only".into());
        }
        let p = a.worst_case();
        let mut buf = Vec::new();
        gen::worst_case(&mut buf, &p).map_err(|e| e.to_string())?;
        let file = wirespeed_capture::CaptureFile::from_bytes("worst-case", buf)
            .map_err(|e| e.to_string())?;
        return send_file(iface, &file, a.pace.pace()?, 0);
    }
    let Some(output) = &a.output else {
        return Err("gen needs -o FILE or --to IFACE".into());
    };
    if a.truth.as_ref() == Some(output) {
        return Err("--truth and -o name the same file".into());
    }
    // `-o -`: standard output, for `wirespeed gen demo -o - | wirespeed classify -`.
    let w = BufWriter::with_capacity(1 << 20, open_out(Some(output)).map_err(|e| e.to_string())?);
    match a.trace {
        Trace::WorstCase => {
            let p = a.worst_case();
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
        Trace::HeavyTail => {
            let p = a.heavy_tail();
            let mut truth = match &a.truth {
                Some(t) => {
                    let mut f = BufWriter::new(OutFile::create(t).map_err(|e| e.to_string())?);
                    writeln!(
                        f,
                        "flow,l4,src_ip,src_port,dst_ip,dst_port,master,app,host,\
                         c2s_pkts,c2s_bytes,s2c_pkts,s2c_bytes"
                    )
                    .map_err(|e| e.to_string())?;
                    Some(f)
                }
                None => None,
            };
            let mut err = None;
            let s = gen::heavy_tail(w, &p, |h| {
                let (Some(t), None) = (truth.as_mut(), err.as_ref()) else {
                    return;
                };
                let f = &h.flow;
                if let Err(e) = writeln!(
                    t,
                    "{},{},{},{},{},{},{},{},{},{},{},{},{}",
                    h.id,
                    f.l4,
                    f.src_ip,
                    f.src_port,
                    f.dst_ip,
                    f.dst_port,
                    h.master,
                    f.app,
                    h.host,
                    f.c2s.0,
                    f.c2s.1,
                    f.s2c.0,
                    f.s2c.1
                ) {
                    err = Some(e);
                }
            })
            .map_err(|e| e.to_string())?;
            if let Some(e) = err {
                return Err(e.to_string());
            }
            if let Some(mut t) = truth {
                t.flush().map_err(|e| e.to_string())?;
            }
            eprintln!(
                "wrote {} packets ({} bytes), {} flows to {}",
                s.packets,
                s.bytes,
                s.flows,
                output.display()
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}
