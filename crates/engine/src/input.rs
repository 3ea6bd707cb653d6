//! Inputs that cannot be mapped (a pipe, standard input): the same processing as a file's,
//! window after window ([`wirespeed_capture::stream`]), for one worker and for a pool alike.

use std::io;
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use wirespeed_capture::CaptureError;
use wirespeed_capture::CaptureFile;

/// Processes one window's packets, flows left open, reporting how far it has read.
pub(crate) type Window<'w> =
    dyn FnMut(&CaptureFile, &mut dyn FnMut(u64)) -> io::Result<FileOutcome> + 'w;

/// Every window of the stream at `path` through `window` (which processes a window's packets
/// and leaves the flows open), one after the other: the packets read, and the error that ended
/// the stream early with its offset in the stream (a damaged record, or the stream cut inside
/// one), after every whole record before it was processed. Memory stays a window's. Once
/// `stop` is set, the window being read stops at its next batch ([`EngineConfig::stop`]).
///
/// [`EngineConfig::stop`]: crate::EngineConfig::stop
pub(crate) fn stream(
    path: &Path,
    stop: Option<&Arc<AtomicBool>>,
    progress: &mut dyn FnMut(u64, u64),
    window: &mut Window<'_>,
) -> io::Result<FileOutcome> {
    let mut windows = match wirespeed_capture::stream::open(path) {
        Ok(w) => w,
        Err(e) => {
            return Ok(FileOutcome {
                packets: 0,
                error: Some(e),
            })
        }
    };
    let (mut packets, mut error) = (0u64, None);
    loop {
        let (file, end) = windows.next_window();
        if let Some(mut file) = file {
            if let Some(stop) = stop {
                file.stop_when(stop.clone());
            }
            // A stream's length is unknown: progress says how far it has come.
            let at = windows.position();
            let o = window(&file, &mut |_| progress(at, 0))?;
            packets += o.packets;
            if let Some(e) = o.error {
                error = Some(windows.in_stream(e));
                break;
            }
        }
        match end {
            Some(e) => {
                error = Some(e);
                break;
            }
            None if windows.is_done() => break,
            None => {}
        }
    }
    Ok(FileOutcome { packets, error })
}

/// How reading one input file went.
#[derive(Debug)]
pub struct FileOutcome {
    /// Packets read from the file.
    pub packets: u64,
    /// The error that stopped reading early, if any (every packet before it was processed).
    pub error: Option<CaptureError>,
}
