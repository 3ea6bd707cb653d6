//! Bounded TCP reassembly for inspection: in-order bytes to inspectors, a message cut across
//! segments (a ClientHello over two segments) shown whole, out-of-order segments held until the
//! gap fills.
//!
//! Each flow direction is a [`Stream`]: the next expected sequence number and, only when needed,
//! one buffer from the shared [`ReasmPool`]. Most flows never take a buffer: a segment that
//! arrives in order is handed to the probes as it is (zero copy). A buffer is taken when
//!
//! * a probe calls [`Cx::incomplete`](crate::Cx::incomplete) (the message continues in the next
//!   segment): the segment is copied in and later in-order segments are appended;
//! * a segment arrives ahead of a gap: it is stored at its offset until the gap fills.
//!
//! Caps, each counted in [`ReasmStats`] when hit: the pool holds `buffers` buffers (global cap);
//! a buffer holds `bytes` bytes of one direction's stream from its base (per-flow byte cap) and
//! remembers at most `segments` out-of-order segments (per-flow segment cap). With no buffer free
//! an out-of-order segment is inspected as it is and the stream resynchronizes on it.

/// Reassembly events.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReasmStats {
    /// Buffers taken for a message cut across segments.
    pub started: u64,
    /// Segments held out of order.
    pub out_of_order: u64,
    /// Times reassembled bytes were shown to the probes.
    pub delivered: u64,
    /// Segments wholly already seen (retransmissions), skipped.
    pub duplicates: u64,
    /// Global cap: no buffer free.
    pub pool_full: u64,
    /// Per-flow byte cap: bytes beyond a buffer's end dropped.
    pub overflow: u64,
    /// Per-flow segment cap: out-of-order segments dropped.
    pub segments_full: u64,
    /// Streams resynchronized on a segment after a gap that could not be held.
    pub resync: u64,
}

impl ReasmStats {
    /// Add another's counters.
    pub fn add(&mut self, o: &ReasmStats) {
        self.started += o.started;
        self.out_of_order += o.out_of_order;
        self.delivered += o.delivered;
        self.duplicates += o.duplicates;
        self.pool_full += o.pool_full;
        self.overflow += o.overflow;
        self.segments_full += o.segments_full;
        self.resync += o.resync;
    }

    /// Every cap hit.
    pub fn caps_hit(&self) -> u64 {
        self.pool_full + self.overflow + self.segments_full
    }
}

/// One direction of a TCP flow as the inspectors see it.
#[derive(Clone, Copy, Debug, Default)]
pub struct Stream {
    next: u32,
    synced: bool,
    /// Buffer index + 1; 0 = none.
    buf: u32,
}

/// What to show the probes after a segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Deliver {
    /// Nothing new in order (held, duplicate, or dropped).
    Nothing,
    /// The segment itself is the next in-order data.
    Direct,
    /// The stream's buffer holds new in-order data: show [`ReasmPool::data`].
    Buffered,
}

#[derive(Clone, Copy, Debug, Default)]
struct BufInfo {
    /// Sequence number of the buffer's first byte.
    base: u32,
    /// In-order bytes from `base`.
    have: u32,
    /// Out-of-order ranges held (offsets from base), `nseg` of them in `ranges`.
    nseg: u32,
}

/// The shared buffers and their counters.
pub struct ReasmPool {
    size: usize,
    segs: usize,
    cap: usize,
    bytes: Vec<u8>,
    info: Vec<BufInfo>,
    ranges: Vec<(u32, u32)>,
    free: Vec<u32>,
    /// Events so far.
    pub stats: ReasmStats,
}

impl ReasmPool {
    /// A pool of at most `buffers` buffers of `bytes` bytes, each holding up to `segments`
    /// out-of-order segments. Memory is taken as buffers are first used, never beyond the caps.
    pub fn new(buffers: usize, bytes: usize, segments: usize) -> Self {
        ReasmPool {
            size: bytes.clamp(1, u32::MAX as usize / 2),
            segs: segments.max(1),
            cap: buffers,
            bytes: Vec::new(),
            info: Vec::new(),
            ranges: Vec::new(),
            free: Vec::new(),
            stats: ReasmStats::default(),
        }
    }

    fn take(&mut self, base: u32) -> Option<u32> {
        let idx = match self.free.pop() {
            Some(i) => i,
            None if self.info.len() < self.cap => {
                self.info.push(BufInfo::default());
                self.bytes.resize(self.info.len() * self.size, 0);
                self.ranges.resize(self.info.len() * self.segs, (0, 0));
                self.info.len() as u32 - 1
            }
            None => {
                self.stats.pool_full += 1;
                return None;
            }
        };
        if let Some(i) = self.info.get_mut(idx as usize) {
            *i = BufInfo {
                base,
                have: 0,
                nseg: 0,
            };
        }
        Some(idx + 1)
    }

    /// Give the stream's buffer back (it goes on in direct mode).
    pub fn free(&mut self, s: &mut Stream) {
        if s.buf != 0 {
            self.free.push(s.buf - 1);
            s.buf = 0;
        }
    }

    /// The in-order bytes held for the stream (empty without a buffer).
    pub fn data(&self, s: &Stream) -> &[u8] {
        let Some(i) = s.buf.checked_sub(1).map(|i| i as usize) else {
            return &[];
        };
        let have = self.info.get(i).map_or(0, |b| b.have as usize);
        self.bytes
            .get(i * self.size..i * self.size + have)
            .unwrap_or(&[])
    }

    /// Start buffering at `seq` with the segment just shown (a probe found it incomplete).
    pub fn start(&mut self, s: &mut Stream, seq: u32, payload: &[u8]) {
        if s.buf != 0 {
            return;
        }
        let Some(b) = self.take(seq) else {
            return;
        };
        s.buf = b;
        self.stats.started += 1;
        self.write(b as usize - 1, 0, payload);
    }

    /// Copy `data` at offset `off` of buffer `i`; returns bytes written. Extends `have` when the
    /// write touches it and merges held ranges that become contiguous.
    fn write(&mut self, i: usize, off: usize, data: &[u8]) -> usize {
        let size = self.size;
        let n = data.len().min(size.saturating_sub(off));
        if n < data.len() {
            self.stats.overflow += 1;
        }
        if n == 0 {
            return 0;
        }
        if let (Some(dst), Some(src)) = (
            self.bytes.get_mut(i * size + off..i * size + off + n),
            data.get(..n),
        ) {
            dst.copy_from_slice(src);
        }
        let Some(info) = self.info.get_mut(i) else {
            return n;
        };
        let end = (off + n) as u32;
        if off as u32 <= info.have {
            info.have = info.have.max(end);
            // Merge held segments now reached (at most `segs` passes).
            let rs = self
                .ranges
                .get_mut(i * self.segs..(i + 1) * self.segs)
                .unwrap_or(&mut []);
            let mut k = 0;
            let mut guard = 0;
            while k < info.nseg as usize && guard < self.segs * self.segs + 1 {
                guard += 1;
                let (a, b) = rs.get(k).copied().unwrap_or((u32::MAX, 0));
                if a <= info.have {
                    info.have = info.have.max(b);
                    // Remove range k (swap with last) and rescan from the start.
                    let last = info.nseg as usize - 1;
                    rs.swap(k, last);
                    info.nseg -= 1;
                    k = 0;
                } else {
                    k += 1;
                }
            }
        } else if (info.nseg as usize) < self.segs {
            if let Some(r) = self.ranges.get_mut(i * self.segs + info.nseg as usize) {
                *r = (off as u32, end);
                info.nseg += 1;
                self.stats.out_of_order += 1;
            }
        } else {
            self.stats.segments_full += 1;
        }
        n
    }

    /// A segment arrived for stream `s`: what is there to show?
    pub fn accept(&mut self, s: &mut Stream, seq: u32, payload: &[u8]) -> Deliver {
        let len = payload.len() as u32;
        if !s.synced {
            s.synced = true;
            s.next = seq;
        }
        if s.buf == 0 {
            let off = seq.wrapping_sub(s.next) as i32;
            if off == 0 {
                s.next = seq.wrapping_add(len);
                return Deliver::Direct;
            }
            if off < 0 {
                let end = seq.wrapping_add(len).wrapping_sub(s.next) as i32;
                if end <= 0 {
                    self.stats.duplicates += 1;
                    return Deliver::Nothing;
                }
                // Overlaps the old end: the new tail is what counts; show the whole segment
                // (probes look at message starts, a partial overlap is a resend with more data).
                s.next = seq.wrapping_add(len);
                return Deliver::Direct;
            }
            // Ahead of a gap: hold it if we can.
            if (off as usize) < self.size {
                if let Some(b) = self.take(s.next) {
                    s.buf = b;
                    self.write(b as usize - 1, off as usize, payload);
                    return Deliver::Nothing;
                }
            } else {
                self.stats.overflow += 1;
            }
            self.stats.resync += 1;
            s.next = seq.wrapping_add(len);
            return Deliver::Direct;
        }
        let i = s.buf as usize - 1;
        let Some(info) = self.info.get(i).copied() else {
            s.buf = 0;
            return Deliver::Nothing;
        };
        let off = seq.wrapping_sub(info.base) as i32;
        let (off, payload) = if off < 0 {
            // Starts before the buffer: keep the part from the base on.
            let skip = off.unsigned_abs() as usize;
            match payload.get(skip..) {
                Some(p) if !p.is_empty() => (0usize, p),
                _ => {
                    self.stats.duplicates += 1;
                    return Deliver::Nothing;
                }
            }
        } else {
            (off as usize, payload)
        };
        if off + payload.len() <= info.have as usize {
            self.stats.duplicates += 1;
            return Deliver::Nothing;
        }
        self.write(i, off, payload);
        let have = self.info.get(i).map_or(0, |b| b.have);
        s.next = info.base.wrapping_add(have);
        if have > info.have {
            self.stats.delivered += 1;
            Deliver::Buffered
        } else {
            Deliver::Nothing
        }
    }
}

/// A bounded buffer an inspector fills by offset across datagrams (UDP flows only), backed by
/// the reassembly pool: the same caps, the same counters. Taken on the first [`Stash::put`].
pub struct Stash<'a> {
    pool: &'a mut ReasmPool,
    s: &'a mut Stream,
}

impl<'a> Stash<'a> {
    pub(crate) fn new(pool: &'a mut ReasmPool, s: &'a mut Stream) -> Self {
        Stash { pool, s }
    }

    /// Store `data` at `off`; false when no buffer could be had (counted) or nothing fit.
    pub fn put(&mut self, off: usize, data: &[u8]) -> bool {
        if self.s.buf == 0 {
            match self.pool.take(0) {
                Some(b) => {
                    self.s.buf = b;
                    self.pool.stats.started += 1;
                }
                None => return false,
            }
        }
        let i = self.s.buf as usize - 1;
        if off >= self.pool.size {
            self.pool.stats.overflow += 1;
            return false;
        }
        self.pool.write(i, off, data) > 0
    }

    /// The bytes held from offset 0 without a gap.
    pub fn bytes(&self) -> &[u8] {
        self.pool.data(self.s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn in_order_is_direct_and_copies_nothing() {
        let mut p = ReasmPool::new(2, 64, 4);
        let mut s = Stream::default();
        assert_eq!(p.accept(&mut s, 100, b"abc"), Deliver::Direct);
        assert_eq!(p.accept(&mut s, 103, b"def"), Deliver::Direct);
        assert_eq!(p.accept(&mut s, 100, b"abc"), Deliver::Nothing);
        assert_eq!(p.stats.duplicates, 1);
        assert!(p.bytes.is_empty());
    }

    #[test]
    fn message_over_two_segments_is_shown_whole() {
        let mut p = ReasmPool::new(2, 64, 4);
        let mut s = Stream::default();
        assert_eq!(p.accept(&mut s, 10, b"hello "), Deliver::Direct);
        p.start(&mut s, 10, b"hello ");
        assert_eq!(p.accept(&mut s, 16, b"world"), Deliver::Buffered);
        assert_eq!(p.data(&s), b"hello world");
    }

    #[test]
    fn out_of_order_segments_wait_for_the_gap() {
        let mut p = ReasmPool::new(1, 64, 4);
        let mut s = Stream::default();
        assert_eq!(p.accept(&mut s, 0, b"ab"), Deliver::Direct);
        assert_eq!(p.accept(&mut s, 6, b"gh"), Deliver::Nothing);
        assert_eq!(p.accept(&mut s, 4, b"ef"), Deliver::Nothing);
        assert_eq!(p.accept(&mut s, 2, b"cd"), Deliver::Buffered);
        assert_eq!(p.data(&s), b"cdefgh");
        assert_eq!(p.stats.out_of_order, 2);
        // A second flow finds the only buffer taken: counted, and it resynchronizes.
        let mut t = Stream::default();
        assert_eq!(p.accept(&mut t, 0, b"x"), Deliver::Direct);
        assert_eq!(p.accept(&mut t, 5, b"y"), Deliver::Direct);
        assert_eq!((p.stats.pool_full, p.stats.resync), (1, 1));
    }

    #[test]
    fn caps_are_counted() {
        let mut p = ReasmPool::new(1, 8, 1);
        let mut s = Stream::default();
        assert_eq!(p.accept(&mut s, 0, b"abcdef"), Deliver::Direct);
        p.start(&mut s, 0, b"abcdef");
        assert_eq!(p.accept(&mut s, 6, b"ghijkl"), Deliver::Buffered);
        assert_eq!(p.data(&s), b"abcdefgh");
        assert_eq!(p.stats.overflow, 1);
        p.free(&mut s);
        let mut t = Stream::default();
        p.accept(&mut t, 0, b"a");
        assert_eq!(p.accept(&mut t, 3, b"d"), Deliver::Nothing);
        assert_eq!(p.accept(&mut t, 5, b"f"), Deliver::Nothing);
        assert_eq!(p.stats.segments_full, 1);
    }

    #[test]
    fn sequence_numbers_wrap() {
        let mut p = ReasmPool::new(1, 64, 4);
        let mut s = Stream::default();
        assert_eq!(p.accept(&mut s, u32::MAX - 1, b"ab"), Deliver::Direct);
        p.start(&mut s, u32::MAX - 1, b"ab");
        assert_eq!(p.accept(&mut s, 0, b"cd"), Deliver::Buffered);
        assert_eq!(p.data(&s), b"abcd");
    }
}
