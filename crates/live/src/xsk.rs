//! AF_XDP capture (`live --capture xdp`, issue 39 item 3): the frames an XDP program redirects
//! to this process's XDP sockets, one socket per receive queue of each interface
//! ([`sys::XskSocket`]), read as a worker's [`Feed`]: each worker drains its share of the
//! sockets in turn, a batch at a time, in place in the sockets' memory (as the AF_PACKET rings'
//! blocks are), each frame given back to the kernel once its batch is processed. The program
//! (the eBPF crate's `XskCapture`, loaded by the command line) stamps each frame with
//! `CLOCK_MONOTONIC` in the frame's metadata; a frame without it takes the time of its batch.

use crate::copies::wall;
use crate::sys::{self, monotonic_ns, XskSocket};
use std::io;
use std::os::fd::RawFd;
use std::time::Duration;
use wirespeed_capture::RawPacket;
use wirespeed_engine::runtime::feed::{Each, MAX_BATCH};
use wirespeed_engine::runtime::Feed;

/// Batches a call reads from one socket at most (then the next socket, then the worker's other
/// duties).
const BATCHES: usize = 8;

/// After a read that found frames, how long the feed sleeps instead of polling: the kernel
/// wakes an XDP socket's reader for every frame, and polling at once had it wake, read one or
/// two and poll again (3-4× the CPU at 200-400 kpps); the receive ring holds tens of
/// milliseconds at line rate. An idle socket is still polled, woken by its first frame.
const SETTLE: Duration = Duration::from_micros(500);

/// One worker's XDP sockets, with the interface index of each.
pub struct XskFeed {
    sockets: Vec<(XskSocket, u32)>,
    fds: Vec<RawFd>,
    /// The socket drained first at the next call (each call starts one further on, so a busy
    /// queue does not starve the others).
    next: usize,
    /// Wall clock minus monotonic clock, ns, at the start.
    offset_ns: i128,
    /// The last read found frames.
    busy: bool,
}

impl XskFeed {
    /// A feed of `sockets`, each with the index of the interface it is bound to.
    pub fn new(sockets: Vec<(XskSocket, u32)>) -> XskFeed {
        let fds = sockets.iter().map(|(s, _)| s.fd()).collect();
        let wall_now = sys::realtime_ns();
        let mono = monotonic_ns();
        XskFeed {
            sockets,
            fds,
            next: 0,
            offset_ns: i128::from(wall_now) - i128::from(mono),
            busy: false,
        }
    }
}

impl Feed for XskFeed {
    fn read(&mut self, each: &mut Each<'_>) -> io::Result<u64> {
        let k = self.sockets.len();
        let mut total = 0u64;
        let offset = self.offset_ns;
        for j in 0..k {
            let (sock, ifindex) = &mut self.sockets[(self.next + j) % k];
            let ifindex = *ifindex;
            for _ in 0..BATCHES {
                let (n, r) = sock.recv(MAX_BATCH, |frames| {
                    let mut slots = [RawPacket::EMPTY; MAX_BATCH];
                    let mut m = 0;
                    // The batch's time, read once and only if a frame came without the
                    // program's.
                    let mut now: Option<u64> = None;
                    for (slot, (ts, data)) in slots.iter_mut().zip(frames) {
                        let mono = ts.unwrap_or_else(|| *now.get_or_insert_with(monotonic_ns));
                        *slot = RawPacket {
                            ts_ns: wall(mono, offset),
                            wire_len: data.len() as u32,
                            // Ethernet: XDP sees Ethernet frames.
                            link: 1,
                            iface: ifindex,
                            data,
                        };
                        m += 1;
                    }
                    if m == 0 {
                        return Ok(());
                    }
                    each(&slots[..m], &mut [])
                });
                r?;
                total += n as u64;
                if n < MAX_BATCH {
                    break;
                }
            }
        }
        if k > 0 {
            self.next = (self.next + 1) % k;
        }
        self.busy |= total > 0;
        Ok(total)
    }

    fn wait(&mut self, timeout: Duration) -> io::Result<()> {
        if std::mem::take(&mut self.busy) {
            std::thread::sleep(SETTLE.min(timeout));
            return Ok(());
        }
        if self.fds.is_empty() {
            std::thread::sleep(timeout);
            return Ok(());
        }
        let ms = timeout.as_millis().min(i32::MAX as u128) as i32;
        if sys::poll_readable(&self.fds, ms)? != 0 {
            // An error on a descriptor: never spin on it.
            std::thread::sleep(timeout);
        }
        Ok(())
    }

    fn now_ns(&self) -> u64 {
        wall(monotonic_ns(), self.offset_ns)
    }
}
