//! Capture files in, packets out, in batches.
//!
//! [`CaptureFile::open`] maps a pcap or pcapng file (either byte order; micro- or nanosecond
//! timestamps; pcapng with several interfaces, each with its own link type and timestamp
//! resolution) and [`PacketReader`] hands out [`RawPacket`]s that borrow the mapped bytes. A
//! truncated or corrupt file yields every good packet before the damage and then one
//! [`CaptureError`] naming the file and byte offset. [`PcapWriter`] writes classic pcap files (used
//! by the synthetic trace generator and by tests); [`PcapngWriter`] writes pcapng files with one
//! or more interfaces.
//!
//! Files that cannot be mapped (a FIFO, `/dev/stdin`, a character device, or a regular file whose
//! mapping fails) are read into memory whole by [`CaptureFile::open`]; inputs that may never end
//! (pipes, standard input) are better read by [`stream::StreamWindows`], in bounded windows of
//! whole records, which the engine does. [`CaptureFile::from_bytes`] wraps bytes that are already
//! in memory (fuzzing, tests, a stream's window).
#![deny(unsafe_code)]
#![deny(unsafe_op_in_unsafe_fn)]
#![deny(missing_docs)]

use std::fmt;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// One captured packet, borrowed from the mapped file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RawPacket<'a> {
    /// Capture timestamp in nanoseconds since the Unix epoch.
    pub ts_ns: u64,
    /// Length of the packet on the wire (the record's original length).
    pub wire_len: u32,
    /// Link type of the interface the packet was captured on (pcap LINKTYPE number).
    pub link: u32,
    /// Index of the pcapng interface (0 for pcap).
    pub iface: u32,
    /// The captured bytes (caplen = `data.len()`).
    pub data: &'a [u8],
}

/// What went wrong reading a capture file, and where.
#[derive(Debug)]
pub struct CaptureError {
    /// The file.
    pub path: PathBuf,
    /// Byte offset in the file where the problem starts.
    pub offset: u64,
    /// What is wrong.
    pub kind: CaptureErrorKind,
}

/// The kinds of capture-file errors.
#[derive(Debug)]
pub enum CaptureErrorKind {
    /// The file could not be opened or mapped.
    Io(std::io::Error),
    /// The first bytes are neither a pcap nor a pcapng magic number.
    UnknownFormat,
    /// The file ends inside a header or record: `needed` bytes were required, `available` remained.
    Truncated {
        /// Bytes the header or record needs.
        needed: u64,
        /// Bytes left in the file.
        available: u64,
    },
    /// A header or block field has an impossible value.
    Corrupt(&'static str),
}

impl fmt::Display for CaptureError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: offset {}: ", self.path.display(), self.offset)?;
        match &self.kind {
            CaptureErrorKind::Io(e) => write!(f, "{e}"),
            CaptureErrorKind::UnknownFormat => write!(f, "not a pcap or pcapng file"),
            CaptureErrorKind::Truncated { needed, available } => write!(
                f,
                "truncated: needs {needed} bytes, {available} left in the file"
            ),
            CaptureErrorKind::Corrupt(what) => write!(f, "corrupt: {what}"),
        }
    }
}

impl std::error::Error for CaptureError {}

/// Largest record a pcap file may claim (unless its snaplen is larger) before it is called corrupt
/// rather than truncated.
const PCAP_MAX_CAPLEN: u32 = 256 * 1024;
/// pcapng Section Header Block type (a palindrome, the same in both byte orders).
const PCAPNG_SHB: u32 = 0x0A0D_0D0A;
/// pcapng byte-order magic.
const PCAPNG_BOM: u32 = 0x1A2B_3C4D;

/// A pcapng section's byte order from its byte-order magic read little-endian: big-endian or
/// not; None for a bad magic.
fn bom_order(bom: u32) -> Option<bool> {
    match bom {
        PCAPNG_BOM => Some(false),
        b if b.swap_bytes() == PCAPNG_BOM => Some(true),
        _ => None,
    }
}

/// Where a file's bytes live.
enum Backing {
    /// A read-only mapping of a regular file.
    Map(memmap2::Mmap),
    /// Bytes read into memory (pipes, devices, [`CaptureFile::from_bytes`]).
    Owned(Vec<u8>),
}

/// Consumed parts of a mapping are handed back in steps of this size (see
/// [`Backing::release`]).
const RELEASE_STEP: usize = 32 << 20;

/// Bytes of the file mapped ahead of the reader in one call (see [`Backing::populate`]): on the
/// worst case (5M 64-byte frames) one worker went from 0.94-1.14 s to 0.86-0.99 s, two workers
/// from 0.72-0.94 s to 0.53-0.55 s (same machine, same minutes).
const POPULATE_STEP: usize = 16 << 20;

/// Bytes a shared scan's pages are mapped ahead or released in one call (see
/// [`CaptureFile::populate_ahead`], [`CaptureFile::release_behind`]). Small on purpose: the
/// worker that makes the call is held up ~0.1 ms, less than the work the others have queued.
/// With [`POPULATE_STEP`] taken inside the scan (2 ms a call) and [`RELEASE_STEP`] (1.2 ms),
/// the other worker waited at every one: ~60 ms a run on the worst case, 5% of two workers' time.
const SHARED_STEP: usize = 1 << 20;

/// How far past a shared scan's position its pages are mapped ahead.
const SHARED_LEAD: usize = 4 << 20;

/// How far ahead of the reader its cache lines are prefetched (see `PacketReader::prefetch_ahead`).
const PREFETCH_AHEAD: usize = 4096;

/// Hint the CPU to bring the cache line holding `b` closer; never faults, never changes meaning.
#[inline(always)]
fn prefetch(b: &u8) {
    #[cfg(target_arch = "x86_64")]
    #[allow(unsafe_code)]
    // SAFETY: prefetch is a hint; it cannot fault or change memory, and `b` is a valid reference.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>(b as *const u8 as *const i8);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = b;
}

/// How far behind the reader pages are released: packets handed out but still queued for other
/// threads (the multi-worker dispatcher's rings) are read from resident pages, not faulted back.
const RELEASE_LAG: usize = 16 << 20;

impl Backing {
    /// Drop the pages of `[from, to)` from this process's resident set. The file's pages stay
    /// in the page cache, and a later read of the range faults them back in with the same
    /// bytes, so nothing borrowed becomes invalid; without this, reading a capture file larger
    /// than memory limits would count the whole file against the process. No-op for owned
    /// bytes and on failure (advice only).
    fn release(&self, from: usize, to: usize) {
        #[cfg(unix)]
        if let Backing::Map(m) = self {
            const PAGE: usize = 4096;
            let start = from.next_multiple_of(PAGE);
            let end = to.min(m.len()) & !(PAGE - 1);
            if end > start {
                #[allow(unsafe_code)]
                // SAFETY: the mapping is a read-only (PROT_READ, MAP_SHARED) mapping of a file
                // and is never written. MADV_DONTNEED on it only unmaps this process's pages;
                // any later access faults the unchanged file contents back in from the page
                // cache, so every outstanding `&[u8]` into the range still reads the same bytes
                // (a test re-reads released packets). With pages larger than 4 KiB the call
                // fails with EINVAL and is ignored: advice only.
                let _ = unsafe {
                    m.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, start, end - start)
                };
            }
        }
        #[cfg(not(unix))]
        let _ = (from, to);
    }

    /// Release the pages from `released` up to [`RELEASE_LAG`] behind `at`, once at least
    /// `step` bytes are due; `released` records how far that has gone.
    fn release_lagging(&self, released: &mut usize, at: usize, step: usize) {
        if at >= *released + RELEASE_LAG + step {
            let to = at - RELEASE_LAG;
            self.release(*released, to);
            *released = to & !(4096 - 1);
        }
    }

    /// Map `[from, from + len)` into this process now (`MADV_POPULATE_READ`, Linux 5.14+), so
    /// reading it takes no page faults. Advice only: ignored on failure and elsewhere.
    fn populate(&self, from: usize, len: usize) {
        #[cfg(target_os = "linux")]
        if let Backing::Map(m) = self {
            let len = len.min(m.len().saturating_sub(from));
            if len > 0 {
                let _ = m.advise_range(memmap2::Advice::PopulateRead, from, len);
            }
        }
        #[cfg(not(target_os = "linux"))]
        let _ = (from, len);
    }

    fn bytes(&self) -> &[u8] {
        match self {
            Backing::Map(m) => m,
            Backing::Owned(v) => v,
        }
    }
}

/// Order of the caplen and len fields in pcap records, by file version.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LenOrder {
    /// Version 2.4 and later: caplen, then len.
    Normal,
    /// Versions 2.0–2.2: len, then caplen.
    Swapped,
    /// Version 2.3: swapped when caplen > len.
    Maybe,
}

/// The file format, as decided from the magic number when the file is opened.
#[derive(Clone, Copy, Debug)]
enum Format {
    Pcap {
        big_endian: bool,
        nanos: bool,
        link: u32,
        /// FCS bytes at the end of each frame (from the link-type field's FCS bits).
        fcs: u32,
        /// Largest caplen accepted.
        max_caplen: u32,
        /// Files written as version 2.0–2.2 have caplen and len in the other order, and 2.3
        /// files may (libpcap's rule, which every pcap reader follows).
        lens: LenOrder,
    },
    Pcapng,
}

/// A capture file mapped into memory.
pub struct CaptureFile {
    path: PathBuf,
    data: Backing,
    format: Format,
}

fn err(path: &Path, offset: usize, kind: CaptureErrorKind) -> CaptureError {
    CaptureError {
        path: path.to_path_buf(),
        offset: offset as u64,
        kind,
    }
}

fn truncated(path: &Path, offset: usize, needed: usize, available: usize) -> CaptureError {
    err(
        path,
        offset,
        CaptureErrorKind::Truncated {
            needed: needed as u64,
            available: available as u64,
        },
    )
}

/// The `N` bytes at `off`, with one bounds check rather than one a byte (the record header is
/// read at every packet). Callers have checked the length; past the end reads as zeros rather
/// than panicking.
#[inline]
fn bytes_at<const N: usize>(b: &[u8], off: usize) -> [u8; N] {
    b.get(off..)
        .and_then(<[u8]>::first_chunk::<N>)
        .copied()
        .unwrap_or([0; N])
}

#[inline]
fn rd16(b: &[u8], off: usize, be: bool) -> u16 {
    let a = bytes_at(b, off);
    if be {
        u16::from_be_bytes(a)
    } else {
        u16::from_le_bytes(a)
    }
}

#[inline]
fn rd32(b: &[u8], off: usize, be: bool) -> u32 {
    let a = bytes_at(b, off);
    if be {
        u32::from_be_bytes(a)
    } else {
        u32::from_le_bytes(a)
    }
}

fn rd64(b: &[u8], off: usize, be: bool) -> u64 {
    let a = bytes_at(b, off);
    if be {
        u64::from_be_bytes(a)
    } else {
        u64::from_le_bytes(a)
    }
}

impl CaptureFile {
    /// Open and map `path`, checking its magic number (and, for pcap, that the 24-byte global
    /// header is complete).
    ///
    /// Regular files are memory-mapped. Anything else (a FIFO, `/dev/stdin`, a character device),
    /// or a regular file whose mapping fails, is read into memory instead, so `open` works on
    /// pipes too. Errors: [`CaptureErrorKind::Io`] when the file cannot be opened or read; an
    /// empty file (or one shorter than a magic number) is [`CaptureErrorKind::Truncated`] and an
    /// unknown magic [`CaptureErrorKind::UnknownFormat`], both at offset 0.
    pub fn open(path: &Path) -> Result<CaptureFile, CaptureError> {
        let io_err = |e: io::Error| err(path, 0, CaptureErrorKind::Io(e));
        let mut file = std::fs::File::open(path).map_err(io_err)?;
        let meta = file.metadata().map_err(io_err)?;
        let data = if meta.is_file() && meta.len() > 0 {
            #[allow(unsafe_code)]
            // SAFETY: the file is opened read-only and the mapping is never written through. If
            // another process truncates or rewrites the file while it is mapped, reads may see
            // changed bytes or fault (SIGBUS); that is the accepted risk every mmap-based reader
            // (libpcap, Wireshark, ripgrep) takes. Every read below is bounds-checked against the
            // mapping's length, so changed bytes can only produce a parse error, never UB in
            // this crate's own code.
            let mapped = unsafe { memmap2::Mmap::map(&file) };
            match mapped {
                Ok(m) => Backing::Map(m),
                // Some file systems cannot map; reading is slower but always works.
                Err(_) => Backing::Owned(read_all(&mut file, meta.len()).map_err(io_err)?),
            }
        } else if meta.is_file() {
            Backing::Owned(Vec::new())
        } else {
            Backing::Owned(read_all(&mut file, 0).map_err(io_err)?)
        };
        Self::with_backing(path.to_path_buf(), data)
    }

    /// Wrap capture-file bytes already in memory; `name` is used in error messages. The same
    /// checks as [`CaptureFile::open`] apply.
    pub fn from_bytes(
        name: impl Into<PathBuf>,
        bytes: Vec<u8>,
    ) -> Result<CaptureFile, CaptureError> {
        Self::with_backing(name.into(), Backing::Owned(bytes))
    }

    fn with_backing(path: PathBuf, data: Backing) -> Result<CaptureFile, CaptureError> {
        let b = data.bytes();
        if b.len() < 4 {
            return Err(truncated(&path, 0, 4, b.len()));
        }
        let magic = [b[0], b[1], b[2], b[3]];
        let (big_endian, nanos) = match magic {
            [0xd4, 0xc3, 0xb2, 0xa1] => (false, false),
            [0xa1, 0xb2, 0xc3, 0xd4] => (true, false),
            [0x4d, 0x3c, 0xb2, 0xa1] => (false, true),
            [0xa1, 0xb2, 0x3c, 0x4d] => (true, true),
            [0x0a, 0x0d, 0x0d, 0x0a] => {
                return Ok(CaptureFile {
                    path,
                    data,
                    format: Format::Pcapng,
                })
            }
            _ => return Err(err(&path, 0, CaptureErrorKind::UnknownFormat)),
        };
        if b.len() < 24 {
            return Err(truncated(&path, 0, 24, b.len()));
        }
        let rd16 = |at: usize| {
            let v = [b[at], b[at + 1]];
            if big_endian {
                u16::from_be_bytes(v)
            } else {
                u16::from_le_bytes(v)
            }
        };
        let lens = match (rd16(4), rd16(6)) {
            (2, 0..=2) => LenOrder::Swapped,
            (2, 3) => LenOrder::Maybe,
            _ => LenOrder::Normal,
        };
        let snaplen = rd32(b, 16, big_endian);
        let network = rd32(b, 20, big_endian);
        // The link-type field: low 16 bits are the LINKTYPE; bit 28 says the top 3 bits give the
        // FCS length in 16-bit words (draft-ietf-opsawg-pcap).
        let fcs = if network & 0x1000_0000 != 0 {
            (network >> 29) * 2
        } else {
            0
        };
        let format = Format::Pcap {
            big_endian,
            nanos,
            link: network & 0xffff,
            fcs,
            max_caplen: PCAP_MAX_CAPLEN.max(snaplen.min(1 << 24)),
            lens,
        };
        Ok(CaptureFile { path, data, format })
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Size of the file in bytes.
    pub fn len(&self) -> u64 {
        self.data.bytes().len() as u64
    }

    /// True for an empty file.
    pub fn is_empty(&self) -> bool {
        self.data.bytes().is_empty()
    }

    /// The whole file's bytes.
    pub fn bytes(&self) -> &[u8] {
        self.data.bytes()
    }

    /// True for a pcapng file, false for classic pcap.
    pub fn is_pcapng(&self) -> bool {
        matches!(self.format, Format::Pcapng)
    }

    /// A reader over the file's packets from the start.
    pub fn reader(&self) -> PacketReader<'_> {
        let pos = match self.format {
            Format::Pcap { .. } => 24,
            Format::Pcapng => 0,
        };
        PacketReader {
            file: self,
            bytes: self.data.bytes(),
            pos,
            be: false,
            ifaces: Vec::new(),
            pending: None,
            released: 0,
            populated: 0,
            prefetched: 0,
            own_pages: true,
            done: false,
        }
    }

    /// Give back to the kernel the mapped pages that every reader of a shared scan is done
    /// with: `slowest` is the position of the slowest [`PacketReader::shared`] reader (the
    /// file's pages stay in the page cache, see [`PacketReader::next_batch`]). Pages are released
    /// 16 MiB behind `slowest`, once at least 1 MiB is due; `released` is the caller's record of
    /// how far that has gone (start it at 0).
    pub fn release_behind(&self, released: &mut usize, slowest: usize) {
        self.data.release_lagging(released, slowest, SHARED_STEP);
    }

    /// Map the file's pages ahead of a shared scan, outside the scan's lock, so that reading
    /// takes no page faults and no worker waits while another maps pages for all: `scanned` is
    /// how far the scan has read, `populated` how far the pages are mapped (start it at 0),
    /// shared by every caller. Each step of 1 MiB is claimed by one caller (compare-exchange);
    /// steps are taken until the pages are mapped 4 MiB past `scanned` (after the first call,
    /// called once a chunk of the scan: as many steps as the chunk had MiB, usually one or
    /// none). Advice only, as for a single reader.
    pub fn populate_ahead(&self, populated: &AtomicUsize, scanned: usize) {
        let target = scanned
            .saturating_add(SHARED_LEAD)
            .min(self.data.bytes().len());
        let mut cur = populated.load(Ordering::Relaxed);
        while cur < target {
            let next = cur + SHARED_STEP;
            match populated.compare_exchange(cur, next, Ordering::Relaxed, Ordering::Relaxed) {
                Ok(_) => {
                    self.data.populate(cur, SHARED_STEP);
                    cur = next;
                }
                Err(now) => cur = now,
            }
        }
    }
}

/// Read a whole non-mappable file.
fn read_all(file: &mut std::fs::File, hint: u64) -> io::Result<Vec<u8>> {
    let mut v = Vec::with_capacity(hint.min(1 << 30) as usize);
    file.read_to_end(&mut v)?;
    Ok(v)
}

/// A pcapng timestamp unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TsUnit {
    /// 10^-n seconds.
    Pow10(u8),
    /// 2^-n seconds.
    Pow2(u8),
}

/// A pcapng interface of the current section.
#[derive(Clone, Copy, Debug)]
struct Iface {
    link: u32,
    unit: TsUnit,
    /// if_tsoffset: seconds added to every timestamp.
    offset_s: i64,
}

/// Convert a pcapng timestamp to nanoseconds since the epoch, saturating at 0 and `u64::MAX`
/// rather than overflowing on hostile values.
fn pcapng_ts_ns(ts: u64, unit: TsUnit, offset_s: i64) -> u64 {
    let ts = ts as u128;
    // ts < 2^64, so ts * 10^9 < 2^94: no overflow in u128.
    let ns: u128 = match unit {
        TsUnit::Pow10(9) => ts,
        TsUnit::Pow10(6) => ts * 1_000,
        TsUnit::Pow10(e) if e < 9 => ts * 10u128.pow(u32::from(9 - e)),
        TsUnit::Pow10(e) => {
            let d = u32::from(e - 9);
            // 10^38 < 2^128 < 10^39.
            if d > 38 {
                0
            } else {
                ts / 10u128.pow(d)
            }
        }
        TsUnit::Pow2(n) => (ts * 1_000_000_000) >> u32::from(n.min(127)),
    };
    // |ns| < 2^94 and |offset_s * 10^9| < 2^94: fits i128.
    let total = ns as i128 + i128::from(offset_s) * 1_000_000_000;
    total.clamp(0, i128::from(u64::MAX)) as u64
}

/// Hands out the packets of a [`CaptureFile`] in order.
pub struct PacketReader<'a> {
    file: &'a CaptureFile,
    bytes: &'a [u8],
    /// Offset of the next record or block.
    pos: usize,
    /// pcapng: the current section is big-endian.
    be: bool,
    /// pcapng: interfaces of the current section (grows only when an IDB is read).
    ifaces: Vec<Iface>,
    /// An error met after packets were already appended to a batch, delivered on the next call.
    pending: Option<CaptureError>,
    /// Everything before this offset has been handed back to the kernel (see `Backing::release`).
    released: usize,
    /// Everything before this offset has been mapped ahead (see `Backing::populate`).
    populated: usize,
    /// Every cache line before this offset has been prefetched (see [`PREFETCH_AHEAD`]).
    prefetched: usize,
    /// Release pages behind this reader and map pages ahead of it (false when several readers
    /// scan one file: see [`PacketReader::shared`]).
    own_pages: bool,
    /// End of file reached, or an error delivered.
    done: bool,
}

impl<'a> PacketReader<'a> {
    /// Append up to `max` packets to `batch` (which the caller clears and reuses, so steady-state
    /// reading allocates nothing) and return how many were appended.
    ///
    /// Exact semantics:
    /// * `Ok(n)` with `n > 0`: `n` packets were appended. `n < max` does *not* mean end of file:
    ///   if reading stopped at damage, the error is held back and returned by the next call.
    /// * `Ok(0)` (with `max > 0`): end of file, or an error was already returned; every later call
    ///   returns `Ok(0)` too. `max == 0` always returns `Ok(0)` and reads nothing.
    /// * `Err(e)`: the next record is truncated or corrupt, `e.offset` is where it starts. Nothing
    ///   was appended by this call (every good packet before the damage was handed out by earlier
    ///   calls), and every later call returns `Ok(0)`.
    ///
    /// So a loop that processes `batch` whenever it is non-empty and stops on `Ok(0)` or `Err`
    /// sees every good packet before the damage, then the error.
    pub fn next_batch(
        &mut self,
        batch: &mut Vec<RawPacket<'a>>,
        max: usize,
    ) -> Result<usize, CaptureError> {
        self.next_batch_visit(max, |p| batch.push(p))
    }

    /// [`PacketReader::next_batch`] that hands each of up to `max` packets to `visit`, in order,
    /// instead of appending it to a batch; returns how many were read (same semantics). For
    /// workers that scan the same file and each keep only their own packets.
    #[inline]
    pub fn next_batch_visit(
        &mut self,
        max: usize,
        mut visit: impl FnMut(RawPacket<'a>),
    ) -> Result<usize, CaptureError> {
        if max == 0 {
            return Ok(0);
        }
        if let Some(e) = self.pending.take() {
            return Err(e);
        }
        // The previous batch has been processed: its bytes need not stay resident.
        if self.own_pages {
            self.file
                .data
                .release_lagging(&mut self.released, self.pos, RELEASE_STEP);
        }
        // Map the next pages in one call each POPULATE_STEP instead of one fault per few pages.
        if self.own_pages && self.pos + POPULATE_STEP / 4 > self.populated {
            let from = self.populated.max(self.pos) & !(4096 - 1);
            self.file.data.populate(from, POPULATE_STEP);
            self.populated = from + POPULATE_STEP;
        }
        let mut n = 0;
        while n < max && !self.done {
            self.prefetch_ahead();
            match self.next_packet() {
                Ok(Some(p)) => {
                    visit(p);
                    n += 1;
                }
                Ok(None) => self.done = true,
                Err(e) => {
                    self.done = true;
                    if n == 0 {
                        return Err(e);
                    }
                    self.pending = Some(e);
                }
            }
        }
        Ok(n)
    }

    /// Prefetch every cache line up to [`PREFETCH_AHEAD`] bytes past the reader. A capture file
    /// is a chain: the next record's offset is known only from the current record's length, so
    /// without this every record header is a dependent miss to memory (~100 ns; on the corpus mix
    /// 82% of the reader's samples sat on that one load). Streaming the lines ahead turns the
    /// chain into independent loads the memory system overlaps.
    #[inline]
    fn prefetch_ahead(&mut self) {
        let end = (self.pos + PREFETCH_AHEAD).min(self.bytes.len());
        let mut at = self.prefetched.max(self.pos & !63);
        while at < end {
            if let Some(b) = self.bytes.get(at) {
                prefetch(b);
            }
            at += 64;
        }
        self.prefetched = at;
    }

    /// This reader as the one scanning a file for several workers, or one of several scanning
    /// it: it releases no pages behind itself, since the others may still be reading them, and
    /// maps none ahead of itself, since it may be reading under a lock the others wait on. The
    /// callers release what all are done with by [`CaptureFile::release_behind`] and map ahead
    /// by [`CaptureFile::populate_ahead`].
    pub fn shared(mut self) -> Self {
        self.own_pages = false;
        self
    }

    /// Bytes of the file consumed so far (for progress bars): the offset just past the last
    /// record or block read. After an error it is the offset of the damaged record or block; at
    /// end of file it is the file's length.
    pub fn position(&self) -> u64 {
        self.pos as u64
    }

    /// The next packet, `None` at end of file. Leaves `pos` at the bad record on error.
    #[inline]
    fn next_packet(&mut self) -> Result<Option<RawPacket<'a>>, CaptureError> {
        match self.file.format {
            Format::Pcap {
                big_endian,
                nanos,
                link,
                fcs,
                max_caplen,
                lens,
            } => self.next_pcap(big_endian, nanos, link, fcs, max_caplen, lens),
            Format::Pcapng => self.next_pcapng(),
        }
    }

    fn err(&self, offset: usize, kind: CaptureErrorKind) -> CaptureError {
        err(&self.file.path, offset, kind)
    }

    fn corrupt(&self, offset: usize, what: &'static str) -> CaptureError {
        self.err(offset, CaptureErrorKind::Corrupt(what))
    }

    #[inline]
    fn next_pcap(
        &mut self,
        be: bool,
        nanos: bool,
        link: u32,
        fcs: u32,
        max_caplen: u32,
        lens: LenOrder,
    ) -> Result<Option<RawPacket<'a>>, CaptureError> {
        let b = self.bytes;
        let at = self.pos;
        let left = b.len() - at;
        if left == 0 {
            return Ok(None);
        }
        if left < 16 {
            return Err(truncated(&self.file.path, at, 16, left));
        }
        let sec = rd32(b, at, be);
        let frac = rd32(b, at + 4, be);
        let (mut caplen, mut origlen) = (rd32(b, at + 8, be), rd32(b, at + 12, be));
        if lens == LenOrder::Swapped || (lens == LenOrder::Maybe && caplen > origlen) {
            (caplen, origlen) = (origlen, caplen);
        }
        if caplen > max_caplen {
            return Err(self.corrupt(at, "record caplen larger than 256 KiB and the snaplen"));
        }
        let need = 16 + caplen as usize;
        if need > left {
            return Err(truncated(&self.file.path, at, need, left));
        }
        let mult = if nanos { 1 } else { 1_000 };
        let ts_ns = u64::from(sec) * 1_000_000_000 + u64::from(frac) * mult;
        let mut data = &b[at + 16..at + need];
        let mut wire_len = origlen;
        if fcs != 0 {
            (data, wire_len) = strip_fcs(data, origlen, fcs);
        }
        self.pos = at + need;
        Ok(Some(RawPacket {
            ts_ns,
            wire_len,
            link,
            iface: 0,
            data,
        }))
    }

    fn next_pcapng(&mut self) -> Result<Option<RawPacket<'a>>, CaptureError> {
        let b = self.bytes;
        loop {
            let at = self.pos;
            let left = b.len() - at;
            if left == 0 {
                return Ok(None);
            }
            if left < 12 {
                return Err(truncated(&self.file.path, at, 12, left));
            }
            let btype_le = rd32(b, at, false);
            if btype_le == PCAPNG_SHB {
                // The byte order of the section comes from its byte-order magic.
                self.be = bom_order(rd32(b, at + 8, false)).ok_or_else(|| {
                    self.corrupt(at, "section header with a bad byte-order magic")
                })?;
            }
            let be = self.be;
            let btype = rd32(b, at, be);
            let total = rd32(b, at + 4, be) as usize;
            if total < 12 {
                return Err(self.corrupt(at, "block total length below 12"));
            }
            if total & 3 != 0 {
                return Err(self.corrupt(at, "block total length not a multiple of 4"));
            }
            if total > left {
                return Err(truncated(&self.file.path, at, total, left));
            }
            if rd32(b, at + total - 4, be) as usize != total {
                return Err(self.corrupt(at, "block trailing length differs from leading length"));
            }
            let blk = &b[at..at + total];
            match btype {
                PCAPNG_SHB => {
                    if total < 28 {
                        return Err(self.corrupt(at, "section header block too short"));
                    }
                    if rd16(blk, 12, be) != 1 {
                        return Err(self.corrupt(at, "unsupported pcapng major version"));
                    }
                    self.ifaces.clear();
                }
                1 => {
                    if total < 20 {
                        return Err(self.corrupt(at, "interface description block too short"));
                    }
                    let mut iface = Iface {
                        link: u32::from(rd16(blk, 8, be)),
                        unit: TsUnit::Pow10(6),
                        offset_s: 0,
                    };
                    for (code, val) in Options::new(&blk[16..total - 4], be) {
                        match (code, val.len()) {
                            (9, 1..) => {
                                let r = val[0];
                                iface.unit = if r & 0x80 == 0 {
                                    TsUnit::Pow10(r)
                                } else {
                                    TsUnit::Pow2(r & 0x7f)
                                };
                            }
                            (14, 8..) => iface.offset_s = rd64(val, 0, be) as i64,
                            _ => {}
                        }
                    }
                    self.ifaces.push(iface);
                }
                // Enhanced Packet Block and the obsolete Packet Block share a layout, except that
                // the Packet Block's interface id is 16 bits (followed by a drop count).
                6 | 2 => {
                    if total < 32 {
                        return Err(self.corrupt(at, "packet block too short"));
                    }
                    let id = if btype == 6 {
                        rd32(blk, 8, be)
                    } else {
                        u32::from(rd16(blk, 8, be))
                    };
                    let Some(iface) = self.ifaces.get(id as usize).copied() else {
                        return Err(self.corrupt(at, "packet for unknown interface"));
                    };
                    let ts = (u64::from(rd32(blk, 12, be)) << 32) | u64::from(rd32(blk, 16, be));
                    let caplen = rd32(blk, 20, be) as usize;
                    let origlen = rd32(blk, 24, be);
                    if caplen > total - 32 {
                        return Err(self.corrupt(at, "packet data overruns its block"));
                    }
                    self.pos = at + total;
                    return Ok(Some(RawPacket {
                        ts_ns: pcapng_ts_ns(ts, iface.unit, iface.offset_s),
                        wire_len: origlen,
                        link: iface.link,
                        iface: id,
                        data: &blk[28..28 + caplen],
                    }));
                }
                3 => {
                    if total < 16 {
                        return Err(self.corrupt(at, "simple packet block too short"));
                    }
                    let Some(iface) = self.ifaces.first().copied() else {
                        return Err(self.corrupt(at, "packet for unknown interface"));
                    };
                    let origlen = rd32(blk, 8, be);
                    let caplen = (origlen as usize).min(total - 16);
                    self.pos = at + total;
                    return Ok(Some(RawPacket {
                        ts_ns: 0,
                        wire_len: origlen,
                        link: iface.link,
                        iface: 0,
                        data: &blk[12..12 + caplen],
                    }));
                }
                // Name resolution, statistics, decryption secrets, custom, ...: skipped.
                _ => {}
            }
            self.pos = at + total;
        }
    }
}

/// Drop the FCS at the end of a frame: the frame without its FCS is `origlen - fcs` bytes, which
/// becomes the wire length, and captured bytes beyond it are cut.
fn strip_fcs(data: &[u8], origlen: u32, fcs: u32) -> (&[u8], u32) {
    let frame = origlen.saturating_sub(fcs);
    let keep = data.len().min(frame as usize);
    (&data[..keep], frame)
}

/// Iterator over a pcapng options area: `(code, value)` until `opt_endofopt` or the end. A
/// malformed option (its length past the end of the area) ends the iteration: options never
/// make a file unreadable.
struct Options<'a> {
    b: &'a [u8],
    be: bool,
}

impl<'a> Options<'a> {
    fn new(b: &'a [u8], be: bool) -> Self {
        Options { b, be }
    }
}

impl<'a> Iterator for Options<'a> {
    type Item = (u16, &'a [u8]);

    fn next(&mut self) -> Option<Self::Item> {
        if self.b.len() < 4 {
            return None;
        }
        let code = rd16(self.b, 0, self.be);
        let len = rd16(self.b, 2, self.be) as usize;
        if code == 0 || 4 + len > self.b.len() {
            self.b = &[];
            return None;
        }
        let val = &self.b[4..4 + len];
        let adv = (4 + len + 3) & !3;
        self.b = &self.b[adv.min(self.b.len())..];
        Some((code, val))
    }
}

impl<'a> Iterator for PacketReader<'a> {
    type Item = Result<RawPacket<'a>, CaptureError>;

    /// The next packet; after an error (yielded once) the iterator ends.
    fn next(&mut self) -> Option<Self::Item> {
        if let Some(e) = self.pending.take() {
            return Some(Err(e));
        }
        if self.done {
            return None;
        }
        match self.next_packet() {
            Ok(Some(p)) => Some(Ok(p)),
            Ok(None) => {
                self.done = true;
                None
            }
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }
}

/// Split `ts_ns` into whole seconds (which must fit 32 bits for pcap) and the nanosecond rest.
fn split_ts(ts_ns: u64) -> io::Result<(u32, u32)> {
    let sec = u32::try_from(ts_ns / 1_000_000_000).map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            "timestamp after 2106 does not fit a pcap record",
        )
    })?;
    Ok((sec, (ts_ns % 1_000_000_000) as u32))
}

fn caplen_u32(data: &[u8]) -> io::Result<u32> {
    u32::try_from(data.len())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "packet longer than 4 GiB"))
}

/// Writes a classic pcap file (little-endian, micro- or nanosecond timestamps).
pub struct PcapWriter<W: std::io::Write> {
    out: W,
    nanos: bool,
}

impl<W: std::io::Write> PcapWriter<W> {
    /// Write the global header for `link` with snaplen 65535.
    pub fn new(mut out: W, link: u32, nanos: bool) -> std::io::Result<Self> {
        let magic: u32 = if nanos { 0xa1b2_3c4d } else { 0xa1b2_c3d4 };
        let mut h = [0u8; 24];
        h[0..4].copy_from_slice(&magic.to_le_bytes());
        h[4..6].copy_from_slice(&2u16.to_le_bytes());
        h[6..8].copy_from_slice(&4u16.to_le_bytes());
        // thiszone and sigfigs: 0.
        h[16..20].copy_from_slice(&65535u32.to_le_bytes());
        h[20..24].copy_from_slice(&link.to_le_bytes());
        out.write_all(&h)?;
        Ok(PcapWriter { out, nanos })
    }

    /// Write one record; `wire_len` may exceed `data.len()` to record a truncated capture.
    /// Microsecond files truncate the timestamp to the microsecond. Fails with `InvalidInput`
    /// for a timestamp whose seconds do not fit 32 bits or data longer than 4 GiB.
    pub fn write(&mut self, ts_ns: u64, data: &[u8], wire_len: u32) -> std::io::Result<()> {
        let (sec, ns) = split_ts(ts_ns)?;
        let frac = if self.nanos { ns } else { ns / 1_000 };
        let mut h = [0u8; 16];
        h[0..4].copy_from_slice(&sec.to_le_bytes());
        h[4..8].copy_from_slice(&frac.to_le_bytes());
        h[8..12].copy_from_slice(&caplen_u32(data)?.to_le_bytes());
        h[12..16].copy_from_slice(&wire_len.to_le_bytes());
        self.out.write_all(&h)?;
        self.out.write_all(data)
    }

    /// Flush and return the inner writer.
    pub fn finish(mut self) -> std::io::Result<W> {
        self.out.flush()?;
        Ok(self.out)
    }
}

/// Writes a little-endian pcapng file: one section, any number of interfaces (each with
/// nanosecond timestamps, `if_tsresol` = 9) and Enhanced Packet Blocks.
pub struct PcapngWriter<W: Write> {
    out: W,
    ifaces: u32,
}

impl<W: Write> PcapngWriter<W> {
    /// Write the Section Header Block (version 1.0, section length unknown).
    pub fn new(mut out: W) -> io::Result<Self> {
        let mut b = [0u8; 28];
        b[0..4].copy_from_slice(&PCAPNG_SHB.to_le_bytes());
        b[4..8].copy_from_slice(&28u32.to_le_bytes());
        b[8..12].copy_from_slice(&PCAPNG_BOM.to_le_bytes());
        b[12..14].copy_from_slice(&1u16.to_le_bytes());
        // minor version 0.
        b[16..24].copy_from_slice(&u64::MAX.to_le_bytes());
        b[24..28].copy_from_slice(&28u32.to_le_bytes());
        out.write_all(&b)?;
        Ok(PcapngWriter { out, ifaces: 0 })
    }

    /// Write an Interface Description Block for `link` (no snaplen limit, nanosecond
    /// timestamps) and return its interface id (0, 1, ...). `link` must fit 16 bits.
    pub fn add_interface(&mut self, link: u32) -> io::Result<u32> {
        let link16 = u16::try_from(link).map_err(|_| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                "pcapng link type must fit 16 bits",
            )
        })?;
        let mut b = [0u8; 32];
        b[0..4].copy_from_slice(&1u32.to_le_bytes());
        b[4..8].copy_from_slice(&32u32.to_le_bytes());
        b[8..10].copy_from_slice(&link16.to_le_bytes());
        // reserved 0, snaplen 0 (no limit).
        // if_tsresol = 9 (10^-9 s), padded to 4.
        b[16..18].copy_from_slice(&9u16.to_le_bytes());
        b[18..20].copy_from_slice(&1u16.to_le_bytes());
        b[20] = 9;
        // opt_endofopt: 4 zero bytes at 24..28.
        b[28..32].copy_from_slice(&32u32.to_le_bytes());
        self.out.write_all(&b)?;
        self.ifaces += 1;
        Ok(self.ifaces - 1)
    }

    /// Write an Enhanced Packet Block on interface `iface`; `wire_len` may exceed `data.len()`.
    /// Fails with `InvalidInput` for an interface not added yet or an oversized packet.
    pub fn write(&mut self, iface: u32, ts_ns: u64, data: &[u8], wire_len: u32) -> io::Result<()> {
        if iface >= self.ifaces {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "pcapng packet for an interface not added",
            ));
        }
        let caplen = caplen_u32(data)?;
        let pad = (4 - data.len() % 4) % 4;
        let total = u32::try_from(32 + data.len() + pad)
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "packet too long"))?;
        let mut h = [0u8; 28];
        h[0..4].copy_from_slice(&6u32.to_le_bytes());
        h[4..8].copy_from_slice(&total.to_le_bytes());
        h[8..12].copy_from_slice(&iface.to_le_bytes());
        h[12..16].copy_from_slice(&((ts_ns >> 32) as u32).to_le_bytes());
        h[16..20].copy_from_slice(&(ts_ns as u32).to_le_bytes());
        h[20..24].copy_from_slice(&caplen.to_le_bytes());
        h[24..28].copy_from_slice(&wire_len.to_le_bytes());
        self.out.write_all(&h)?;
        self.out.write_all(data)?;
        self.out.write_all(&[0u8; 3][..pad])?;
        self.out.write_all(&total.to_le_bytes())
    }

    /// Flush and return the inner writer.
    pub fn finish(mut self) -> io::Result<W> {
        self.out.flush()?;
        Ok(self.out)
    }
}

pub mod stream;

#[cfg(test)]
mod tests;
