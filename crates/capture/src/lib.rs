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
//!
//! Layout: this file opens a capture and hands out its packets; `pcap.rs` and `pcapng.rs` read
//! and write each format; `backing.rs` is where the bytes live (mapping, pages ahead and behind);
//! `stream.rs` reads pipes in windows.
#![deny(unsafe_code)]
#![deny(unsafe_op_in_unsafe_fn)]
#![deny(missing_docs)]

mod backing;
pub mod inputs;
mod pcap;
mod pcapng;
pub mod stream;

use backing::*;
pub use pcap::PcapWriter;
use pcap::*;
pub use pcapng::PcapngWriter;
use pcapng::*;

use std::fmt;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

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

impl<'a> RawPacket<'a> {
    /// An Ethernet frame captured whole at `ts_ns` (tests and generators that build frames).
    pub fn ethernet(ts_ns: u64, data: &'a [u8]) -> Self {
        RawPacket {
            ts_ns,
            wire_len: data.len() as u32,
            link: 1,
            iface: 0,
            data,
        }
    }
}

impl RawPacket<'static> {
    /// No packet: fills a batch's slots before they are written (a batch on the stack).
    pub const EMPTY: RawPacket<'static> = RawPacket {
        ts_ns: 0,
        wire_len: 0,
        link: 0,
        iface: 0,
        data: &[],
    };
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
    /// The file holds no byte at all.
    Empty,
    /// Reading was stopped by the flag given to [`CaptureFile::stop_when`] (Ctrl-C in the
    /// Python module): every packet before `offset` was read.
    Interrupted,
}

impl fmt::Display for CaptureError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let CaptureErrorKind::Empty = self.kind {
            return write!(f, "{}: the file is empty", self.path.display());
        }
        write!(f, "{}: offset {}: ", self.path.display(), self.offset)?;
        match &self.kind {
            CaptureErrorKind::Empty => Ok(()),
            CaptureErrorKind::Io(e) => write!(f, "{e}"),
            CaptureErrorKind::UnknownFormat => write!(f, "not a pcap or pcapng file"),
            CaptureErrorKind::Truncated { needed, available } => write!(
                f,
                "truncated: needs {needed} bytes, {available} left in the file"
            ),
            CaptureErrorKind::Corrupt(what) => write!(f, "corrupt: {what}"),
            CaptureErrorKind::Interrupted => write!(f, "interrupted: reading was stopped here"),
        }
    }
}

impl std::error::Error for CaptureError {}

/// How far ahead of the reader its cache lines are prefetched (see `PacketReader::prefetch_ahead`).
pub(crate) const PREFETCH_AHEAD: usize = 4096;

/// How far past its starting point [`CaptureFile::record_near`] looks for a record.
const NEAR_REACH: usize = 1 << 20;

/// The file format, as decided from the magic number when the file is opened.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Format {
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
    /// Once set, readers stop at their next batch ([`CaptureFile::stop_when`]).
    stop: Option<Arc<AtomicBool>>,
}

pub(crate) fn err(path: &Path, offset: usize, kind: CaptureErrorKind) -> CaptureError {
    CaptureError {
        path: path.to_path_buf(),
        offset: offset as u64,
        kind,
    }
}

pub(crate) fn truncated(
    path: &Path,
    offset: usize,
    needed: usize,
    available: usize,
) -> CaptureError {
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
pub(crate) fn bytes_at<const N: usize>(b: &[u8], off: usize) -> [u8; N] {
    b.get(off..)
        .and_then(<[u8]>::first_chunk::<N>)
        .copied()
        .unwrap_or([0; N])
}

#[inline]
pub(crate) fn rd16(b: &[u8], off: usize, be: bool) -> u16 {
    let a = bytes_at(b, off);
    if be {
        u16::from_be_bytes(a)
    } else {
        u16::from_le_bytes(a)
    }
}

#[inline]
pub(crate) fn rd32(b: &[u8], off: usize, be: bool) -> u32 {
    let a = bytes_at(b, off);
    if be {
        u32::from_be_bytes(a)
    } else {
        u32::from_le_bytes(a)
    }
}

pub(crate) fn rd64(b: &[u8], off: usize, be: bool) -> u64 {
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
        if b.is_empty() {
            return Err(err(&path, 0, CaptureErrorKind::Empty));
        }
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
                    stop: None,
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
        Ok(CaptureFile {
            path,
            data,
            format,
            stop: None,
        })
    }

    /// Readers of this file stop at their next batch once `flag` is set, as if the file were
    /// damaged there: [`PacketReader::next_batch`] returns [`CaptureErrorKind::Interrupted`]
    /// at the offset reached (one relaxed load a batch). For a run that must end early without
    /// losing what it has read (Ctrl-C in the Python module).
    pub fn stop_when(&mut self, flag: Arc<AtomicBool>) {
        self.stop = Some(flag);
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
        self.reader_from(pos)
    }

    /// A reader over a classic pcap file's records from offset `at`, taken to be where a
    /// record starts: what it reads is what a reader from the start reads past `at` if one of
    /// its records starts there (a record's reading depends only on the file's header). `None`
    /// for pcapng, whose blocks depend on the interfaces described before them, and for an
    /// offset inside the file's header or past its end. For splitting one pass over a file
    /// between threads, with [`CaptureFile::record_near`] and [`PacketReader::stop_at`].
    pub fn reader_at(&self, at: u64) -> Option<PacketReader<'_>> {
        let at = usize::try_from(at).ok()?;
        match self.format {
            Format::Pcap { .. } if (24..=self.data.bytes().len()).contains(&at) => {
                Some(self.reader_from(at))
            }
            _ => None,
        }
    }

    /// Where a record of a classic pcap file plausibly starts, at or after `from` and within
    /// 1 MiB of it: the first offset from which 16 records follow one another
    /// with plausible headers (fraction of a second below one second, lengths the reader
    /// accepts, captured no longer than on the wire) or run exactly to the end of the file. A
    /// guess, not a fact: bytes of a packet can look like a chain of records. A caller trusts
    /// it only once a reader from the start lands on it ([`PacketReader::stop_at`]). `None`
    /// for pcapng and when nothing within reach looks like a record.
    pub fn record_near(&self, from: u64) -> Option<u64> {
        let Format::Pcap {
            big_endian,
            nanos,
            max_caplen,
            lens,
            ..
        } = self.format
        else {
            return None;
        };
        let b = self.data.bytes();
        let from = usize::try_from(from).ok()?.max(24);
        let last = from.saturating_add(NEAR_REACH).min(b.len());
        let shape = pcap::Shape {
            be: big_endian,
            nanos,
            max_caplen,
            lens,
        };
        (from..last)
            .find(|&at| shape.chain(b, at))
            .map(|at| at as u64)
    }

    fn reader_from(&self, pos: usize) -> PacketReader<'_> {
        PacketReader {
            file: self,
            bytes: self.data.bytes(),
            pos,
            end: usize::MAX,
            be: false,
            ifaces: Vec::new(),
            pending: None,
            // A reader from the middle gives back only what it has read: the pages before its
            // start are another reader's (a release from 0 would unmap them under it).
            released: pos,
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
pub(crate) fn read_all(file: &mut std::fs::File, hint: u64) -> io::Result<Vec<u8>> {
    let mut v = Vec::with_capacity(hint.min(1 << 30) as usize);
    file.read_to_end(&mut v)?;
    Ok(v)
}

/// Hands out the packets of a [`CaptureFile`] in order.
pub struct PacketReader<'a> {
    file: &'a CaptureFile,
    bytes: &'a [u8],
    /// Offset of the next record or block.
    pos: usize,
    /// No record at or past this offset is read ([`PacketReader::stop_at`]).
    end: usize,
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
        if !self.done
            && self
                .file
                .stop
                .as_ref()
                .is_some_and(|s| s.load(Ordering::Relaxed))
        {
            self.done = true;
            return Err(self.err(self.pos, CaptureErrorKind::Interrupted));
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
        while n < max && !self.done && self.pos < self.end {
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

    /// Read no record that starts at or past offset `end`: once there, the reader answers
    /// `Ok(0)` (and the iterator `None`) as at the end of the file, with [`PacketReader::position`]
    /// exactly `end` if a record ends there, past it if the last record read spans it. Another
    /// call moves the limit (`u64::MAX`: none) and reading goes on.
    pub fn stop_at(&mut self, end: u64) {
        self.end = usize::try_from(end).unwrap_or(usize::MAX);
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
}

/// Drop the FCS at the end of a frame: the frame without its FCS is `origlen - fcs` bytes, which
/// becomes the wire length, and captured bytes beyond it are cut.
pub(crate) fn strip_fcs(data: &[u8], origlen: u32, fcs: u32) -> (&[u8], u32) {
    let frame = origlen.saturating_sub(fcs);
    let keep = data.len().min(frame as usize);
    (&data[..keep], frame)
}

impl<'a> Iterator for PacketReader<'a> {
    type Item = Result<RawPacket<'a>, CaptureError>;

    /// The next packet; after an error (yielded once) the iterator ends.
    fn next(&mut self) -> Option<Self::Item> {
        if let Some(e) = self.pending.take() {
            return Some(Err(e));
        }
        if self.done || self.pos >= self.end {
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
pub(crate) fn split_ts(ts_ns: u64) -> io::Result<(u32, u32)> {
    let sec = u32::try_from(ts_ns / 1_000_000_000).map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            "timestamp after 2106 does not fit a pcap record",
        )
    })?;
    Ok((sec, (ts_ns % 1_000_000_000) as u32))
}

pub(crate) fn caplen_u32(data: &[u8]) -> io::Result<u32> {
    u32::try_from(data.len())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "packet longer than 4 GiB"))
}

#[cfg(test)]
mod tests;
