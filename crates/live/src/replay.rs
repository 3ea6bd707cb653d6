//! Replay a capture onto an interface: as fast as possible, at a packet or bit rate, or with the
//! capture's own timing; once, N times or forever. Frames go out by `sendmmsg` in batches,
//! straight from the mapped file.

use crate::sys::TxSocket;
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use wirespeed_capture::{CaptureFile, RawPacket};

/// How fast to send.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Pace {
    /// As fast as the interface takes them.
    Top,
    /// Packets per second.
    Pps(f64),
    /// Megabits per second of frame bytes.
    Mbps(f64),
    /// The gaps between the capture's timestamps.
    Original,
}

/// How a replay went.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ReplayStats {
    /// Frames the kernel took.
    pub sent: u64,
    /// Their bytes.
    pub bytes: u64,
    /// Frames refused by the kernel (too large for the MTU, too short) and skipped.
    pub refused: u64,
    /// Frames not sent because their link type is not Ethernet.
    pub skipped_link: u64,
    /// Times the device queue was full and the sender waited.
    pub busy_waits: u64,
    /// Seconds spent sending.
    pub elapsed_s: f64,
}

impl ReplayStats {
    /// Achieved packets per second.
    pub fn pps(&self) -> f64 {
        self.sent as f64 / self.elapsed_s.max(1e-9)
    }

    /// Achieved megabits per second (frame bytes).
    pub fn mbps(&self) -> f64 {
        self.bytes as f64 * 8.0 / self.elapsed_s.max(1e-9) / 1e6
    }
}

/// Frames per system call.
const BURST: usize = 64;

/// Send the packets of `file` `loops` times (0: until `stop`) on `tx` at `pace`.
pub fn replay(
    tx: &TxSocket,
    file: &CaptureFile,
    pace: Pace,
    loops: u64,
    stop: &AtomicBool,
) -> io::Result<ReplayStats> {
    let mut st = ReplayStats::default();
    let start = Instant::now();
    let mut round = 0u64;
    let mut batch: Vec<RawPacket<'_>> = Vec::with_capacity(BURST);
    let mut frames: Vec<&[u8]> = Vec::with_capacity(BURST);
    // For Original: capture time of the first packet of the round and when the round began.
    while (loops == 0 || round < loops) && !stop.load(Ordering::Relaxed) {
        let mut reader = file.reader();
        let round_start = Instant::now();
        let mut first_ts: Option<u64> = None;
        loop {
            batch.clear();
            let n = match reader.next_batch(&mut batch, BURST) {
                Ok(n) => n,
                Err(e) => return Err(io::Error::other(e.to_string())),
            };
            if n == 0 || stop.load(Ordering::Relaxed) {
                break;
            }
            frames.clear();
            for p in &batch {
                if p.link != 1 {
                    st.skipped_link += 1;
                } else {
                    frames.push(p.data);
                }
            }
            // Pacing: wait until this batch is due.
            let due = match pace {
                Pace::Top => None,
                Pace::Pps(r) => Some(start + Duration::from_secs_f64(st.sent as f64 / r)),
                Pace::Mbps(r) => {
                    Some(start + Duration::from_secs_f64(st.bytes as f64 * 8.0 / (r * 1e6)))
                }
                Pace::Original => {
                    let t0 = *first_ts.get_or_insert(batch[0].ts_ns);
                    Some(round_start + Duration::from_nanos(batch[0].ts_ns.saturating_sub(t0)))
                }
            };
            if let Some(due) = due {
                wait_until(due);
            }
            if matches!(pace, Pace::Pps(_) | Pace::Mbps(_) | Pace::Original) && frames.len() > 1 {
                // Paced runs send one frame per due time so bursts stay small.
                for f in frames.iter() {
                    let due = match pace {
                        Pace::Pps(r) => start + Duration::from_secs_f64(st.sent as f64 / r),
                        Pace::Mbps(r) => {
                            start + Duration::from_secs_f64(st.bytes as f64 * 8.0 / (r * 1e6))
                        }
                        _ => Instant::now(),
                    };
                    wait_until(due);
                    send_all(tx, std::slice::from_ref(f), &mut st)?;
                }
            } else {
                send_all(tx, &frames, &mut st)?;
            }
        }
        round += 1;
    }
    st.elapsed_s = start.elapsed().as_secs_f64();
    Ok(st)
}

fn wait_until(t: Instant) {
    loop {
        let now = Instant::now();
        if now >= t {
            return;
        }
        let left = t - now;
        if left > Duration::from_micros(200) {
            std::thread::sleep(left - Duration::from_micros(100));
        } else {
            std::hint::spin_loop();
        }
    }
}

/// Send every frame, waiting while the device queue is full; frames the kernel refuses are
/// counted and skipped.
fn send_all(tx: &TxSocket, mut frames: &[&[u8]], st: &mut ReplayStats) -> io::Result<()> {
    // A device that stays busy for this many tries in a row is an error, not a hang.
    let mut busy = 0u32;
    while !frames.is_empty() {
        match tx.send(frames) {
            Ok(k) => {
                busy = 0;
                st.sent += k as u64;
                st.bytes += frames[..k].iter().map(|f| f.len() as u64).sum::<u64>();
                frames = &frames[k..];
                if k == 0 && !frames.is_empty() {
                    st.refused += 1;
                    frames = &frames[1..];
                }
            }
            Err(e)
                if e.raw_os_error() == Some(libc::ENOBUFS)
                    || e.kind() == io::ErrorKind::WouldBlock =>
            {
                st.busy_waits += 1;
                busy += 1;
                if busy > 100_000 {
                    return Err(io::Error::other(
                        "the interface has not taken a frame for long",
                    ));
                }
                std::thread::sleep(Duration::from_micros(20));
            }
            Err(e)
                if matches!(
                    e.raw_os_error(),
                    Some(libc::EMSGSIZE) | Some(libc::EINVAL) | Some(libc::ENXIO)
                ) =>
            {
                // The first frame of the call was refused; skip it.
                st.refused += 1;
                frames = &frames[1..];
            }
            Err(e) => return Err(e),
        }
    }
    Ok(())
}
