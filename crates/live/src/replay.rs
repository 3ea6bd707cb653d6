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
const BURST: usize = crate::sys::TX_BURST;

/// Send the packets of `file` `loops` times (0: until `stop`) on `tx` at `pace`.
pub fn replay(
    tx: &mut TxSocket,
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
    let mut ts: Vec<u64> = Vec::with_capacity(BURST);
    while (loops == 0 || round < loops) && !stop.load(Ordering::Relaxed) {
        let mut reader = file.reader();
        let round_start = Instant::now();
        // Original timing: capture time of the round's first packet.
        let mut t0: Option<u64> = None;
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
            ts.clear();
            for p in &batch {
                if p.link != 1 {
                    st.skipped_link += 1;
                } else {
                    frames.push(p.data);
                    ts.push(p.ts_ns);
                }
            }
            let mut i = 0;
            while i < frames.len() {
                // How many of the next frames are due now; when none is, wait for the first.
                let (due, next_at) = match pace {
                    Pace::Top => (frames.len() - i, None),
                    Pace::Pps(r) => {
                        let allowed = (start.elapsed().as_secs_f64() * r) as u64;
                        let done = st.sent + st.refused;
                        let at = start + Duration::from_secs_f64((done + 1) as f64 / r);
                        (allowed.saturating_sub(done) as usize, Some(at))
                    }
                    Pace::Mbps(r) => {
                        let bytes_per_s = r * 1e6 / 8.0;
                        let allowed = start.elapsed().as_secs_f64() * bytes_per_s;
                        let mut b = st.bytes as f64;
                        let mut k = 0;
                        while i + k < frames.len() && b + frames[i + k].len() as f64 <= allowed {
                            b += frames[i + k].len() as f64;
                            k += 1;
                        }
                        let need = st.bytes as f64 + frames[i].len() as f64;
                        (k, Some(start + Duration::from_secs_f64(need / bytes_per_s)))
                    }
                    Pace::Original => {
                        let t0 = *t0.get_or_insert(ts[i]);
                        let now = round_start.elapsed().as_nanos() as u64;
                        let k = ts[i..]
                            .iter()
                            .take_while(|&&t| t.saturating_sub(t0) <= now)
                            .count();
                        let at = round_start + Duration::from_nanos(ts[i].saturating_sub(t0));
                        (k, Some(at))
                    }
                };
                let due = due.min(frames.len() - i);
                if due == 0 {
                    if let Some(at) = next_at {
                        wait_until(at);
                    }
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                    continue;
                }
                send_all(tx, &frames[i..i + due], &mut st)?;
                i += due;
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
fn send_all(tx: &mut TxSocket, mut frames: &[&[u8]], st: &mut ReplayStats) -> io::Result<()> {
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
