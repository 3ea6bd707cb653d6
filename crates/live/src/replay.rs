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

/// Where the frames go, and the clock that paces them: the socket and the machine's clock, or a
/// test's (frames recorded, time that passes only when the replay waits).
trait Wire {
    /// Send a burst of frames; how many the kernel took.
    fn send(&mut self, frames: &[&[u8]]) -> io::Result<usize>;
    /// Now.
    fn now(&self) -> Instant;
    /// Wait until `t`.
    fn wait_until(&mut self, t: Instant);
    /// A short pause while the device queue is full.
    fn busy_pause(&mut self);
}

/// The socket, and the monotonic clock.
struct Socket<'a>(&'a mut TxSocket);

impl Wire for Socket<'_> {
    fn send(&mut self, frames: &[&[u8]]) -> io::Result<usize> {
        self.0.send(frames)
    }

    fn now(&self) -> Instant {
        Instant::now()
    }

    fn wait_until(&mut self, t: Instant) {
        wait_until(t);
    }

    fn busy_pause(&mut self) {
        std::thread::sleep(Duration::from_micros(20));
    }
}

/// Send the packets of `file` `loops` times (0: until `stop`) on `tx` at `pace`.
pub fn replay(
    tx: &mut TxSocket,
    file: &CaptureFile,
    pace: Pace,
    loops: u64,
    stop: &AtomicBool,
) -> io::Result<ReplayStats> {
    replay_on(&mut Socket(tx), file, pace, loops, stop)
}

fn replay_on(
    tx: &mut impl Wire,
    file: &CaptureFile,
    pace: Pace,
    loops: u64,
    stop: &AtomicBool,
) -> io::Result<ReplayStats> {
    let mut st = ReplayStats::default();
    let start = tx.now();
    let mut round = 0u64;
    let mut batch: Vec<RawPacket<'_>> = Vec::with_capacity(BURST);
    let mut frames: Vec<&[u8]> = Vec::with_capacity(BURST);
    let mut ts: Vec<u64> = Vec::with_capacity(BURST);
    while (loops == 0 || round < loops) && !stop.load(Ordering::Relaxed) {
        let mut reader = file.reader();
        let round_start = tx.now();
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
                        let allowed = (since(tx, start).as_secs_f64() * r) as u64;
                        let done = st.sent + st.refused;
                        let at = start + Duration::from_secs_f64((done + 1) as f64 / r);
                        (allowed.saturating_sub(done) as usize, Some(at))
                    }
                    Pace::Mbps(r) => {
                        let bytes_per_s = r * 1e6 / 8.0;
                        let allowed = since(tx, start).as_secs_f64() * bytes_per_s;
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
                        let now = since(tx, round_start).as_nanos() as u64;
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
                        tx.wait_until(at);
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
    st.elapsed_s = since(tx, start).as_secs_f64();
    Ok(st)
}

/// Time on `w`'s clock since `t`.
fn since(w: &impl Wire, t: Instant) -> Duration {
    w.now().saturating_duration_since(t)
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
fn send_all(tx: &mut impl Wire, mut frames: &[&[u8]], st: &mut ReplayStats) -> io::Result<()> {
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
                tx.busy_pause();
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A wire that records when each frame went, on a clock that moves only when the replay
    /// waits: the pacing judged exactly, whatever the machine's speed or load.
    struct Fake {
        base: Instant,
        now: Duration,
        sent: Vec<(Duration, usize)>,
    }

    impl Fake {
        fn new() -> Fake {
            Fake {
                base: Instant::now(),
                now: Duration::ZERO,
                sent: Vec::new(),
            }
        }
    }

    impl Wire for Fake {
        fn send(&mut self, frames: &[&[u8]]) -> io::Result<usize> {
            self.sent.extend(frames.iter().map(|f| (self.now, f.len())));
            Ok(frames.len())
        }
        fn now(&self) -> Instant {
            self.base + self.now
        }
        fn wait_until(&mut self, t: Instant) {
            // As a real clock, it has moved on, if only a little, by the time the wait ends.
            self.now = (t - self.base).max(self.now + Duration::from_nanos(1));
        }
        fn busy_pause(&mut self) {
            self.now += Duration::from_micros(20);
        }
    }

    /// A pcap (microseconds, Ethernet) of frames of these lengths at these offsets (µs).
    fn capture(frames: &[(u64, usize)]) -> CaptureFile {
        let mut p = Vec::new();
        for w in [0xa1b2_c3d4u32, 0x0004_0002, 0, 0, 65535, 1] {
            p.extend_from_slice(&w.to_le_bytes());
        }
        p[4..8].copy_from_slice(&[2, 0, 4, 0]);
        let t0 = 1_700_000_000_000_000u64;
        for &(at, len) in frames {
            let t = t0 + at;
            for w in [
                (t / 1_000_000) as u32,
                (t % 1_000_000) as u32,
                len as u32,
                len as u32,
            ] {
                p.extend_from_slice(&w.to_le_bytes());
            }
            p.extend(std::iter::repeat_n(0u8, len));
        }
        CaptureFile::from_bytes("paced.pcap", p).unwrap()
    }

    fn run(frames: &[(u64, usize)], pace: Pace) -> (Vec<(Duration, usize)>, ReplayStats) {
        let file = capture(frames);
        let mut w = Fake::new();
        let st = replay_on(&mut w, &file, pace, 1, &AtomicBool::new(false)).unwrap();
        assert_eq!(st.sent as usize, frames.len());
        (w.sent, st)
    }

    fn close(a: Duration, b: Duration) -> bool {
        a.abs_diff(b) <= Duration::from_micros(1)
    }

    #[test]
    fn a_packet_rate_sends_each_frame_when_it_is_due() {
        let frames: Vec<(u64, usize)> = (0..300).map(|i| (i, 60)).collect();
        let (sent, st) = run(&frames, Pace::Pps(1000.0));
        for (k, &(at, _)) in sent.iter().enumerate() {
            let due = Duration::from_micros(1000 * (k as u64 + 1));
            assert!(close(at, due), "frame {k} at {at:?}, due {due:?}");
        }
        assert!((st.pps() - 1000.0).abs() < 1.0, "{} pps", st.pps());
    }

    #[test]
    fn a_bit_rate_sends_each_frame_when_its_bytes_are_due() {
        let frames: Vec<(u64, usize)> = (0..200)
            .map(|i| (i, 100 + (i as usize % 7) * 200))
            .collect();
        // 2 Mbit/s: 250,000 bytes a second, 4 µs a byte.
        let (sent, st) = run(&frames, Pace::Mbps(2.0));
        let mut bytes = 0u64;
        for (k, &(at, len)) in sent.iter().enumerate() {
            bytes += len as u64;
            let due = Duration::from_micros(4 * bytes);
            assert!(close(at, due), "frame {k} at {at:?}, due {due:?}");
        }
        assert!((st.mbps() - 2.0).abs() < 0.01, "{} Mbit/s", st.mbps());
    }

    #[test]
    fn original_timing_keeps_the_captures_gaps() {
        // Uneven gaps, a burst of frames at one instant, and a long pause.
        let frames = [
            (0, 60),
            (10, 60),
            (10, 60),
            (2_500, 1500),
            (2_501, 60),
            (1_503_500, 60),
        ];
        let (sent, st) = run(&frames, Pace::Original);
        for (k, (&(at, _), &(ts, _))) in sent.iter().zip(&frames).enumerate() {
            let due = Duration::from_micros(ts);
            assert!(close(at, due), "frame {k} at {at:?}, due {due:?}");
        }
        assert!((st.elapsed_s - 1.5035).abs() < 1e-5, "{} s", st.elapsed_s);
    }

    #[test]
    fn top_speed_never_waits() {
        let frames: Vec<(u64, usize)> = (0..100).map(|i| (i * 1000, 60)).collect();
        let (sent, st) = run(&frames, Pace::Top);
        assert!(sent.iter().all(|&(at, _)| at.is_zero()));
        assert_eq!(st.elapsed_s, 0.0);
    }
}
