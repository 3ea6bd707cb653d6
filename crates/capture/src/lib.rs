//! Capture files in, packets out, in batches.
//!
//! [`CaptureFile::open`] maps a pcap or pcapng file (either byte order; micro- or nanosecond
//! timestamps; pcapng with several interfaces, each with its own link type and timestamp
//! resolution) and [`PacketReader`] hands out [`RawPacket`]s that borrow the mapped bytes. A
//! truncated or corrupt file yields every good packet before the damage and then one
//! [`CaptureError`] naming the file and byte offset. [`PcapWriter`] writes classic pcap files (used
//! by the synthetic trace generator and by tests).
#![deny(unsafe_op_in_unsafe_fn)]
#![deny(missing_docs)]

use std::fmt;
use std::path::{Path, PathBuf};

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

/// A capture file mapped into memory.
pub struct CaptureFile {
    path: PathBuf,
    map: memmap2::Mmap,
}

impl CaptureFile {
    /// Open and map `path`, checking its magic number.
    pub fn open(path: &Path) -> Result<CaptureFile, CaptureError> {
        let _ = path;
        unimplemented!()
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Size of the file in bytes.
    pub fn len(&self) -> u64 {
        self.map.len() as u64
    }

    /// True for an empty file.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// A reader over the file's packets from the start.
    pub fn reader(&self) -> PacketReader<'_> {
        unimplemented!()
    }
}

/// Hands out the packets of a [`CaptureFile`] in order.
pub struct PacketReader<'a> {
    file: &'a CaptureFile,
}

impl<'a> PacketReader<'a> {
    /// Append up to `max` packets to `batch` (which the caller clears and reuses, so steady-state
    /// reading allocates nothing). Returns the number appended; 0 means end of file. After an error
    /// the packets appended before it stay in `batch`, and later calls return `Ok(0)`.
    pub fn next_batch(
        &mut self,
        batch: &mut Vec<RawPacket<'a>>,
        max: usize,
    ) -> Result<usize, CaptureError> {
        let _ = (batch, max, self.file);
        unimplemented!()
    }

    /// Bytes of the file consumed so far (for progress bars).
    pub fn position(&self) -> u64 {
        unimplemented!()
    }
}

/// Writes a classic pcap file (little-endian, micro- or nanosecond timestamps).
pub struct PcapWriter<W: std::io::Write> {
    out: W,
    nanos: bool,
}

impl<W: std::io::Write> PcapWriter<W> {
    /// Write the global header for `link` with snaplen 65535.
    pub fn new(out: W, link: u32, nanos: bool) -> std::io::Result<Self> {
        let _ = link;
        Ok(PcapWriter { out, nanos })
    }

    /// Write one record; `wire_len` may exceed `data.len()` to record a truncated capture.
    pub fn write(&mut self, ts_ns: u64, data: &[u8], wire_len: u32) -> std::io::Result<()> {
        let _ = (ts_ns, data, wire_len, self.nanos, &mut self.out);
        unimplemented!()
    }

    /// Flush and return the inner writer.
    pub fn finish(self) -> std::io::Result<W> {
        unimplemented!()
    }
}
