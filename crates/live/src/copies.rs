//! Packets copied by a program in the kernel, read as a [`Feed`]: `inline --datapath ebpf
//! --capture ringbuf` (issue 39), where the verdict program copies the packets wirespeed
//! classifies into a BPF ring buffer instead of a packet socket taking a copy of every packet.
//! The ring itself is read through [`CopySource`] (the eBPF crate's `Copies`, wrapped by the
//! command line), so this crate does not depend on the loader.
//!
//! The program stamps each copy with `CLOCK_MONOTONIC`; the feed turns that into the wall
//! clock by the difference of the two clocks read when it is made. Records are copied out of
//! the ring into a batch arena (at most [`MAX_BATCH`] packets of at most [`SNAP`] bytes) and
//! handed on from there: the ring's space is given back as each record is read.

use std::io;
use std::time::Duration;
use wirespeed_act::PacketAct;
use wirespeed_capture::RawPacket;
use wirespeed_engine::runtime::feed::{Each, MAX_BATCH};
use wirespeed_engine::runtime::Feed;

/// The most bytes of one packet a copy holds (the program's `COPY_SNAP`); longer copies are
/// cut here.
pub const SNAP: usize = 2048;

/// What [`CopySource::drain`] hands each copy to: (monotonic ns, the packet's length, the
/// interface's index, its first bytes from the link header).
pub type OnCopy<'a> = dyn FnMut(u64, u32, u32, &[u8]) + 'a;

/// A ring of copied packets.
pub trait CopySource: Send {
    /// Hand up to `max` copies to `f` as (monotonic ns, the packet's length, the interface's
    /// index, its first bytes from the link header); returns how many were read.
    fn drain(&mut self, max: usize, f: &mut OnCopy<'_>) -> usize;

    /// A descriptor that polls readable when copies are waiting, where the producer wakes its
    /// reader (None: the feed looks again every millisecond).
    fn wakes(&self) -> Option<std::os::fd::RawFd> {
        None
    }
}

/// Copied packets of Ethernet interfaces, as a worker's [`Feed`].
pub struct CopyFeed<C: CopySource> {
    source: C,
    /// Wall clock minus monotonic clock, ns, at the start.
    offset_ns: i128,
    arena: Vec<u8>,
    /// Per packet in the batch: (wall ns, length, interface index, captured length).
    meta: Vec<(u64, u32, u32, u32)>,
    acts: Vec<PacketAct>,
    /// How often [`Feed::wait`] looks again (copies are submitted without wake-ups).
    poll: Duration,
}

use crate::sys::monotonic_ns;

impl<C: CopySource> CopyFeed<C> {
    /// A feed of `source`'s copies, `acting` as an inline run does (a batch's answer slots).
    pub fn new(source: C, acting: bool) -> CopyFeed<C> {
        let wall = crate::sys::realtime_ns();
        let mono = monotonic_ns();
        CopyFeed {
            source,
            offset_ns: i128::from(wall) - i128::from(mono),
            arena: Vec::with_capacity(MAX_BATCH * SNAP),
            meta: Vec::with_capacity(MAX_BATCH),
            acts: if acting {
                vec![PacketAct::default(); MAX_BATCH]
            } else {
                Vec::new()
            },
            poll: Duration::from_millis(1),
        }
    }
}

/// Monotonic `mono` ns on the wall clock, `offset` (wall minus monotonic) away.
pub(crate) fn wall(mono: u64, offset: i128) -> u64 {
    (i128::from(mono) + offset).clamp(0, i128::from(u64::MAX)) as u64
}

impl<C: CopySource> Feed for CopyFeed<C> {
    fn read(&mut self, each: &mut Each<'_>) -> io::Result<u64> {
        let mut total = 0u64;
        // A bounded number of batches a call, so the worker comes back to its other duties.
        for _ in 0..16 {
            self.arena.clear();
            self.meta.clear();
            let (arena, meta, offset) = (&mut self.arena, &mut self.meta, self.offset_ns);
            let n = self
                .source
                .drain(MAX_BATCH, &mut |mono, len, ifindex, data| {
                    let data = &data[..data.len().min(SNAP)];
                    arena.extend_from_slice(data);
                    meta.push((wall(mono, offset), len, ifindex, data.len() as u32));
                });
            if n == 0 {
                break;
            }
            // The batch on the stack, as the rings' `process_block` makes it: no allocation.
            let mut slots = [RawPacket::EMPTY; MAX_BATCH];
            let mut at = 0usize;
            for (slot, &(ts_ns, len, ifindex, caplen)) in slots.iter_mut().zip(&self.meta) {
                let data = &self.arena[at..at + caplen as usize];
                at += caplen as usize;
                *slot = RawPacket {
                    ts_ns,
                    wire_len: len.max(caplen),
                    // Ethernet: the program parses Ethernet frames alone.
                    link: 1,
                    iface: ifindex,
                    data,
                };
            }
            let batch = &slots[..self.meta.len()];
            match self.acts.get_mut(..batch.len()) {
                Some(a) if !a.is_empty() => {
                    a.fill(PacketAct::default());
                    each(batch, a)?;
                }
                _ => each(batch, &mut [])?,
            }
            total += n as u64;
            if n < MAX_BATCH {
                break;
            }
        }
        Ok(total)
    }

    fn wait(&mut self, timeout: Duration) -> io::Result<()> {
        match self.source.wakes() {
            Some(fd) => {
                let ms = timeout.as_millis().min(i32::MAX as u128) as i32;
                if crate::sys::poll_readable(&[fd], ms)? != 0 {
                    // An error on the descriptor: never spin on it.
                    std::thread::sleep(timeout);
                }
            }
            None => std::thread::sleep(timeout.min(self.poll)),
        }
        Ok(())
    }

    fn now_ns(&self) -> u64 {
        wall(monotonic_ns(), self.offset_ns)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A ring of prepared copies.
    struct Fake(Vec<(u64, u32, u32, Vec<u8>)>);

    impl CopySource for Fake {
        fn drain(&mut self, max: usize, f: &mut OnCopy<'_>) -> usize {
            let n = self.0.len().min(max);
            for (t, l, i, d) in self.0.drain(..n) {
                f(t, l, i, &d);
            }
            n
        }
    }

    /// Every copy reaches the worker once, in order, in batches of at most MAX_BATCH, its
    /// bytes (cut at SNAP), length and time (moved by the clocks' difference) kept.
    #[test]
    fn copies_come_in_order_and_whole() {
        let copies: Vec<_> = (0..600u32)
            .map(|i| {
                let len = (i * 7) % 3000 + 1;
                let data: Vec<u8> = (0..len).map(|b| (b ^ i) as u8).collect();
                (1_000 + u64::from(i), len + 4, 2, data)
            })
            .collect();
        let mut feed = CopyFeed::new(Fake(copies.clone()), false);
        let mut got = Vec::new();
        let mut batches = Vec::new();
        let mut each = |b: &[RawPacket<'_>], a: &mut [PacketAct]| -> io::Result<()> {
            assert!(a.is_empty());
            batches.push(b.len());
            for p in b {
                got.push((p.ts_ns, p.wire_len, p.iface, p.data.to_vec()));
            }
            Ok(())
        };
        let mut n = 0;
        loop {
            let k = feed.read(&mut each).unwrap();
            if k == 0 {
                break;
            }
            n += k;
        }
        assert_eq!(n, 600);
        assert!(batches.iter().all(|&b| b <= MAX_BATCH), "{batches:?}");
        for ((t, l, i, d), (gt, gl, gi, gd)) in copies.iter().zip(&got) {
            assert_eq!(*gt as i128, *t as i128 + feed.offset_ns);
            assert_eq!((*gl, *gi), (*l, *i));
            assert_eq!(gd[..], d[..d.len().min(SNAP)]);
        }
    }
}
