//! `wirespeed replay`: send the packets of a capture file out of an interface (and `gen --to`'s
//! sending, [`send_file`]).

use crate::args::PaceArgs;
use crate::config::stop_flag;
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args)]
pub(crate) struct ReplayArgs {
    /// Interface to send on.
    #[arg(short, long)]
    interface: String,
    /// Capture file (Ethernet frames are sent; others are counted and skipped).
    file: PathBuf,
    /// Send the file this many times; 0: until SIGINT or SIGTERM.
    #[arg(long = "loop", default_value_t = 1)]
    loops: u64,
    #[command(flatten)]
    pace: PaceArgs,
}

pub(crate) fn send_file(
    iface: &str,
    file: &wirespeed_capture::CaptureFile,
    pace: wirespeed_live::Pace,
    loops: u64,
) -> Result<ExitCode, String> {
    let stop = stop_flag()?;
    let mut tx = wirespeed_live::sys::TxSocket::open(iface).map_err(|e| format!("{iface}: {e}"))?;
    let st =
        wirespeed_live::replay(&mut tx, file, pace, loops, &stop).map_err(|e| e.to_string())?;
    eprintln!(
        "replay: {} frames, {} bytes in {:.3} s: {:.0} pps, {:.1} Mbit/s; refused by the kernel {}, \
         not Ethernet (skipped) {}, waits on a full device queue {}",
        st.sent,
        st.bytes,
        st.elapsed_s,
        st.pps(),
        st.mbps(),
        st.refused,
        st.skipped_link,
        st.busy_waits
    );
    Ok(ExitCode::SUCCESS)
}

pub(crate) fn replay(a: ReplayArgs) -> Result<ExitCode, String> {
    let file = wirespeed_capture::CaptureFile::open(&a.file).map_err(|e| e.to_string())?;
    send_file(&a.interface, &file, a.pace.pace()?, a.loops)
}
