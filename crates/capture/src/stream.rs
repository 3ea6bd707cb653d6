//! Capture streams that cannot be mapped (a pipe, standard input, a character device), read in
//! bounded windows instead of whole: `tcpdump -w - | wirespeed classify -` runs for as long as
//! the pipe does, in constant memory.
//!
//! A [`StreamWindows`] frames whole records from the stream (pcap records by their captured
//! length, pcapng blocks by their total length) until a window holds about `window` bytes, and
//! hands the window out as a [`CaptureFile`] of its own: the file header (pcap's global header,
//! or pcapng's section header and every interface description seen so far, so packets keep
//! their interface's link type and time unit) followed by the window's records. The same
//! [`PacketReader`](crate::PacketReader) then parses it; this module only frames, with the same
//! limits as the reader (a pcap record's captured length, a pcapng block's length), so memory is
//! `window` plus one record at most, whatever the stream holds.

use crate::{
    bom_order, err, rd16, rd32, truncated, CaptureError, CaptureErrorKind, CaptureFile, PCAPNG_SHB,
    PCAP_MAX_CAPLEN,
};
use std::io::{self, Read};
use std::path::{Path, PathBuf};

/// Is `path` an input to read as a stream (a pipe, standard input, a character device) rather
/// than to map? `-` is standard input.
pub fn is_stream(path: &Path) -> bool {
    path.as_os_str() == "-"
        || std::fs::metadata(path).is_ok_and(|m| !m.is_file())
        || compression(path).is_some()
}

/// How a capture file is compressed, by its first bytes (as tshark and Zeek read such files).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    /// gzip (RFC 1952), one member or several.
    Gzip,
    /// Zstandard (RFC 8878), one frame or several.
    Zstd,
    /// xz, one stream or several.
    Xz,
}

impl Compression {
    /// The compression these first bytes announce, if any.
    pub fn of(head: &[u8]) -> Option<Compression> {
        if head.starts_with(&[0x1f, 0x8b]) {
            Some(Compression::Gzip)
        } else if head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
            Some(Compression::Zstd)
        } else if head.starts_with(&[0xfd, b'7', b'z', b'X', b'Z', 0x00]) {
            Some(Compression::Xz)
        } else {
            None
        }
    }
}

/// The first bytes of a regular file (up to [`MAGIC_MAX`]), or none.
fn head(path: &Path) -> Vec<u8> {
    let mut b = Vec::with_capacity(MAGIC_MAX);
    if std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        if let Ok(f) = std::fs::File::open(path) {
            let _ = f.take(MAGIC_MAX as u64).read_to_end(&mut b);
        }
    }
    b
}

/// How the file at `path` is compressed, if it is a compressed regular file.
pub fn compression(path: &Path) -> Option<Compression> {
    Compression::of(&head(path))
}

/// Does the file at `path` start as a capture does (pcap or pcapng magic in either byte order,
/// or a compressed file)? For walking directories, where other files are skipped.
pub fn looks_like_capture(path: &Path) -> bool {
    let h = head(path);
    let magic: [[u8; 4]; 5] = [
        [0xd4, 0xc3, 0xb2, 0xa1],
        [0xa1, 0xb2, 0xc3, 0xd4],
        [0x4d, 0x3c, 0xb2, 0xa1],
        [0xa1, 0xb2, 0x3c, 0x4d],
        [0x0a, 0x0d, 0x0d, 0x0a],
    ];
    magic.iter().any(|m| h.starts_with(m)) || Compression::of(&h).is_some()
}

/// The windows of the stream at `path` (`-`: standard input), read through a 1 MiB buffer. A
/// compressed stream is decompressed as it is read, told by its first bytes whatever it is: a
/// file, standard input (`gzip -c x.pcap | wirespeed classify -`), a FIFO.
pub fn open(path: &Path) -> Result<StreamWindows<Box<dyn Read + Send>>, CaptureError> {
    let io_err = |e: io::Error| err(path, 0, CaptureErrorKind::Io(e));
    let src: Box<dyn io::BufRead + Send> = if path.as_os_str() == "-" {
        Box::new(io::BufReader::with_capacity(1 << 20, io::stdin()))
    } else {
        let f = std::fs::File::open(path).map_err(io_err)?;
        Box::new(io::BufReader::with_capacity(1 << 20, f))
    };
    from_reader(src, path)
}

/// The windows of the stream `src` reads, named `name` in errors; decompressed if its first
/// bytes say it is compressed ([`Compression::of`]).
pub fn from_reader<R: io::BufRead + Send + 'static>(
    mut src: R,
    name: &Path,
) -> Result<StreamWindows<Box<dyn Read + Send>>, CaptureError> {
    let io_err = |e: io::Error| err(name, 0, CaptureErrorKind::Io(e));
    // The first bytes, read whole even from a pipe that hands them out one at a time, then put
    // back in front of the rest.
    let mut head = Vec::with_capacity(MAGIC_MAX);
    while head.len() < MAGIC_MAX {
        let got = match src.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(io_err(e)),
        };
        if got.is_empty() {
            break;
        }
        let n = got.len().min(MAGIC_MAX - head.len());
        head.extend_from_slice(&got[..n]);
        src.consume(n);
    }
    let kind = Compression::of(&head);
    let src = io::Cursor::new(head).chain(src);
    let src: Box<dyn Read + Send> = match kind {
        None => Box::new(src),
        Some(Compression::Gzip) => Box::new(flate2::bufread::MultiGzDecoder::new(src)),
        Some(Compression::Xz) => Box::new(xz2::bufread::XzDecoder::new_multi_decoder(src)),
        Some(Compression::Zstd) => Box::new(ZstdFrames::new(src).map_err(io_err)?),
    };
    Ok(StreamWindows::new(src, name, DEFAULT_WINDOW))
}

/// The most first bytes [`Compression::of`] looks at (xz's magic).
const MAGIC_MAX: usize = 6;

/// Zstandard frames one after the other (the decoder reads one frame).
struct ZstdFrames<R: io::BufRead> {
    dec: Option<ruzstd::decoding::StreamingDecoder<R, ruzstd::decoding::FrameDecoder>>,
}

impl<R: io::BufRead> ZstdFrames<R> {
    fn new(src: R) -> io::Result<Self> {
        let dec = ruzstd::decoding::StreamingDecoder::new(src)
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, format!("zstd: {e}")))?;
        Ok(ZstdFrames { dec: Some(dec) })
    }
}

impl<R: io::BufRead> Read for ZstdFrames<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        // Frames end one at a time; the loop ends at the end of the input (bounded by it).
        loop {
            let Some(dec) = self.dec.as_mut() else {
                return Ok(0);
            };
            let n = dec.read(buf)?;
            if n > 0 || buf.is_empty() {
                return Ok(n);
            }
            let Some(d) = self.dec.take() else {
                return Ok(0);
            };
            let mut src = d.into_inner();
            if src.fill_buf()?.is_empty() {
                return Ok(0);
            }
            *self = ZstdFrames::new(src)?;
        }
    }
}

/// The default window: big enough that a window's fixed costs (a header copy, a reader) vanish.
pub const DEFAULT_WINDOW: usize = 8 << 20;

/// The largest pcapng block a stream may hold (a jumbo frame's EPB is ~9 KiB; 16 MiB leaves
/// room for any option block a real writer emits).
pub const MAX_BLOCK: usize = 16 << 20;

/// The most a section's header and interface descriptions may take (they are replayed at the
/// start of every window, so they are held for the whole section).
pub const MAX_HEADER: usize = 1 << 20;

/// The format of the stream, learnt from its first bytes.
#[derive(Clone, Copy, Debug)]
enum Kind {
    Pcap {
        be: bool,
        /// Record lengths in the other order (versions 2.0-2.2), or maybe (2.3).
        swapped: bool,
        maybe: bool,
        max_caplen: u32,
    },
    Pcapng {
        be: bool,
    },
}

/// A capture stream cut into [`CaptureFile`] windows of whole records.
pub struct StreamWindows<R: Read> {
    src: R,
    name: PathBuf,
    window: usize,
    kind: Option<Kind>,
    /// The file header every window starts with.
    header: Vec<u8>,
    /// Stream bytes consumed so far (for error offsets).
    offset: u64,
    /// A pcapng section header read but not yet used: it starts the next window.
    pending: Option<Vec<u8>>,
    /// Where the last window's records start in the stream, and its header's length.
    window_start: u64,
    window_head: u64,
    done: bool,
}

impl<R: Read> StreamWindows<R> {
    /// Windows of about `window` bytes from `src`; `name` names the input in errors.
    pub fn new(src: R, name: impl Into<PathBuf>, window: usize) -> Self {
        StreamWindows {
            src,
            name: name.into(),
            window: window.max(1),
            kind: None,
            header: Vec::new(),
            offset: 0,
            pending: None,
            window_start: 0,
            window_head: 0,
            done: false,
        }
    }

    /// An error from reading the last window, its offset made the stream's: a window is the
    /// header followed by the stream's bytes from where the window started.
    pub fn in_stream(&self, mut e: CaptureError) -> CaptureError {
        if e.offset >= self.window_head {
            e.offset = e.offset - self.window_head + self.window_start;
        }
        e
    }

    /// Bytes of the stream read so far.
    pub fn position(&self) -> u64 {
        self.offset
    }

    /// The stream has ended (cleanly or not): [`StreamWindows::next_window`] has nothing more.
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// The next window, and the error that ended the stream if one did: `(None, None)` once the
    /// stream is over. After an error (a truncated last record, a corrupt length) every whole
    /// record before it has been handed out, in the window returned with the error, so the
    /// caller processes the good records first; then the stream ends.
    pub fn next_window(&mut self) -> (Option<CaptureFile>, Option<CaptureError>) {
        if self.done {
            return (None, None);
        }
        let kind = match self.kind {
            Some(k) => k,
            None => match self.start() {
                Ok(k) => k,
                Err(e) => {
                    self.done = true;
                    return (None, Some(e));
                }
            },
        };
        let mut error = None;
        if let Some(shb) = self.pending.take() {
            // A new section: its header alone starts the window (interfaces reset).
            self.header = shb;
        }
        // The header as it stands now: an interface described inside this window is in the
        // window's body, in order, and in the header of the windows after it.
        let mut body = self.header.clone();
        let head = body.len();
        body.reserve(self.window + 64 * 1024);
        self.window_start = self.offset;
        self.window_head = head as u64;
        while body.len() - head < self.window {
            match self.record(kind, &mut body) {
                Ok(true) => {}
                Ok(false) => {
                    self.done = true;
                    break;
                }
                Err(e) => {
                    self.done = true;
                    error = Some(e);
                    break;
                }
            }
            if self.pending.is_some() {
                break;
            }
        }
        if body.len() == head && (self.done || error.is_some()) {
            return (None, error);
        }
        match CaptureFile::from_bytes(self.name.clone(), body) {
            Ok(f) => (Some(f), error),
            Err(e) => {
                self.done = true;
                (None, Some(e))
            }
        }
    }

    /// Read the file header (an empty stream is called empty, as an empty file is).
    fn start(&mut self) -> Result<Kind, CaptureError> {
        let mut magic = [0u8; 4];
        let n = self.fill(&mut magic)?;
        if n == 0 {
            return Err(crate::err(&self.name, 0, crate::CaptureErrorKind::Empty));
        }
        if n < 4 {
            return Err(truncated(&self.name, 0, 4, n));
        }
        let kind = match magic {
            [0xd4, 0xc3, 0xb2, 0xa1] | [0x4d, 0x3c, 0xb2, 0xa1] => {
                self.pcap_header(magic, false)?
            }
            [0xa1, 0xb2, 0xc3, 0xd4] | [0xa1, 0xb2, 0x3c, 0x4d] => self.pcap_header(magic, true)?,
            [0x0a, 0x0d, 0x0d, 0x0a] => {
                let shb = self.block(&magic)?;
                let be = shb_order(&shb)
                    .ok_or_else(|| self.corrupt(0, "section header with a bad byte-order magic"))?;
                self.header = shb;
                Kind::Pcapng { be }
            }
            _ => return Err(err(&self.name, 0, CaptureErrorKind::UnknownFormat)),
        };
        self.kind = Some(kind);
        Ok(kind)
    }

    fn pcap_header(&mut self, magic: [u8; 4], be: bool) -> Result<Kind, CaptureError> {
        let mut rest = [0u8; 20];
        let n = self.fill(&mut rest)?;
        if n < 20 {
            return Err(truncated(&self.name, 0, 24, 4 + n));
        }
        self.header = [&magic[..], &rest[..]].concat();
        let h = &self.header;
        let (major, minor) = (rd16(h, 4, be), rd16(h, 6, be));
        let snaplen = rd32(h, 16, be);
        Ok(Kind::Pcap {
            be,
            swapped: major == 2 && minor <= 2,
            maybe: major == 2 && minor == 3,
            max_caplen: PCAP_MAX_CAPLEN.max(snaplen.min(1 << 24)),
        })
    }

    /// Append the next record (pcap) or block (pcapng) to `body`; false at a clean end.
    fn record(&mut self, kind: Kind, body: &mut Vec<u8>) -> Result<bool, CaptureError> {
        let at = self.offset;
        match kind {
            Kind::Pcap {
                be,
                swapped,
                maybe,
                max_caplen,
            } => {
                let mut h = [0u8; 16];
                match self.fill(&mut h)? {
                    0 => return Ok(false),
                    16 => {}
                    n => return Err(truncated(&self.name, at as usize, 16, n)),
                }
                let (a, b) = (rd32(&h, 8, be), rd32(&h, 12, be));
                let caplen = if swapped || (maybe && a > b) { b } else { a };
                if caplen > max_caplen {
                    return Err(
                        self.corrupt(at, "record caplen larger than 256 KiB and the snaplen")
                    );
                }
                let start = body.len();
                body.extend_from_slice(&h);
                let n = self.append(body, caplen as usize)?;
                if n < caplen as usize {
                    body.truncate(start);
                    return Err(truncated(
                        &self.name,
                        at as usize,
                        16 + caplen as usize,
                        16 + n,
                    ));
                }
                Ok(true)
            }
            Kind::Pcapng { be } => {
                let mut h = [0u8; 4];
                match self.fill(&mut h)? {
                    0 => return Ok(false),
                    4 => {}
                    n => return Err(truncated(&self.name, at as usize, 12, n)),
                }
                if u32::from_le_bytes(h) == PCAPNG_SHB {
                    // A new section (its own byte order) starts the next window.
                    let blk = self.block(&h)?;
                    let new_be = shb_order(&blk).ok_or_else(|| {
                        self.corrupt(at, "section header with a bad byte-order magic")
                    })?;
                    self.kind = Some(Kind::Pcapng { be: new_be });
                    self.pending = Some(blk);
                    return Ok(true);
                }
                // Any other block is read straight into the window (no copy per packet).
                let mut len = [0u8; 4];
                if self.fill(&mut len)? < 4 {
                    return Err(truncated(&self.name, at as usize, 12, 4));
                }
                let total = rd32(&len, 0, be) as usize;
                self.check_len(at, total, 8)?;
                let start = body.len();
                body.extend_from_slice(&h);
                body.extend_from_slice(&len);
                let n = self.append(body, total - 8)?;
                if n < total - 8 {
                    body.truncate(start);
                    return Err(truncated(&self.name, at as usize, total, 8 + n));
                }
                if rd32(&h, 0, be) == 1 {
                    // Interfaces are numbered in order: later windows replay them.
                    if self.header.len() + total > MAX_HEADER {
                        return Err(
                            self.corrupt(at, "interface descriptions beyond 1 MiB in a stream")
                        );
                    }
                    self.header.extend_from_slice(&body[start..]);
                }
                Ok(true)
            }
        }
    }

    /// Read the rest of a pcapng section header block whose first 4 bytes are `head`: its
    /// length in the byte order its byte-order magic gives.
    fn block(&mut self, head: &[u8; 4]) -> Result<Vec<u8>, CaptureError> {
        let at = self.offset - 4;
        let mut len_bom = [0u8; 8];
        let n = self.fill(&mut len_bom)?;
        if n < 8 {
            return Err(truncated(&self.name, at as usize, 12, 4 + n));
        }
        let be = bom_order(rd32(&len_bom, 4, false))
            .ok_or_else(|| self.corrupt(at, "section header with a bad byte-order magic"))?;
        let total = rd32(&len_bom, 0, be) as usize;
        self.block_rest(at, [&head[..], &len_bom[..]].concat(), total)
    }

    /// A block's total length must cover what was read of it (`have` bytes), be a multiple of
    /// 4, and stay within [`MAX_BLOCK`].
    fn check_len(&self, at: u64, total: usize, have: usize) -> Result<(), CaptureError> {
        if total < 12.max(have) || total & 3 != 0 {
            return Err(self.corrupt(at, "block total length below 12 or not a multiple of 4"));
        }
        if total > MAX_BLOCK {
            return Err(self.corrupt(at, "block longer than 16 MiB in a stream"));
        }
        Ok(())
    }

    fn block_rest(
        &mut self,
        at: u64,
        mut blk: Vec<u8>,
        total: usize,
    ) -> Result<Vec<u8>, CaptureError> {
        self.check_len(at, total, blk.len())?;
        let have = blk.len();
        blk.resize(total, 0);
        let n = self.fill(&mut blk[have..])?;
        if have + n < total {
            return Err(truncated(&self.name, at as usize, total, have + n));
        }
        Ok(blk)
    }

    /// Append the next `n` bytes of the stream (fewer at its end) to `out`, without zeroing
    /// them first; the bytes read.
    fn append(&mut self, out: &mut Vec<u8>, n: usize) -> Result<usize, CaptureError> {
        let before = out.len();
        let mut take = (&mut self.src).take(n as u64);
        loop {
            match take.read_to_end(out) {
                Ok(_) => break,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    let at = self.offset as usize + out.len() - before;
                    return Err(err(&self.name, at, CaptureErrorKind::Io(e)));
                }
            }
        }
        let got = out.len() - before;
        self.offset += got as u64;
        Ok(got)
    }

    /// Read until `buf` is full or the stream ends; the bytes read.
    fn fill(&mut self, buf: &mut [u8]) -> Result<usize, CaptureError> {
        let mut n = 0;
        while n < buf.len() {
            match self.src.read(&mut buf[n..]) {
                Ok(0) => break,
                Ok(k) => n += k,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    return Err(err(
                        &self.name,
                        self.offset as usize + n,
                        CaptureErrorKind::Io(e),
                    ))
                }
            }
        }
        self.offset += n as u64;
        Ok(n)
    }

    fn corrupt(&self, at: u64, what: &'static str) -> CaptureError {
        err(&self.name, at as usize, CaptureErrorKind::Corrupt(what))
    }
}

/// A section header block's byte order: big-endian or not; None for a bad magic.
fn shb_order(shb: &[u8]) -> Option<bool> {
    bom_order(rd32(shb, 8, false))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{PcapWriter, PcapngWriter};
    use proptest::prelude::*;

    /// (interface link, time, wire length, bytes) of every packet, and the error if any.
    type Pkt = (u32, u64, u32, Vec<u8>);

    fn whole(bytes: &[u8]) -> (Vec<Pkt>, Option<String>) {
        let f = CaptureFile::from_bytes("whole", bytes.to_vec()).unwrap();
        let mut out = vec![];
        let mut e = None;
        for r in f.reader() {
            match r {
                Ok(p) => out.push((p.link, p.ts_ns, p.wire_len, p.data.to_vec())),
                Err(x) => e = Some(format!("{:?} at {}", x.kind, x.offset)),
            }
        }
        (out, e)
    }

    fn streamed(bytes: &[u8], window: usize) -> (Vec<Pkt>, Option<String>, usize) {
        drain(StreamWindows::new(bytes, "whole", window))
    }

    fn drain<R: Read>(mut s: StreamWindows<R>) -> (Vec<Pkt>, Option<String>, usize) {
        let (mut out, mut e, mut windows) = (vec![], None, 0);
        loop {
            let (w, end) = s.next_window();
            if let Some(f) = w {
                windows += 1;
                for r in f.reader() {
                    match r {
                        Ok(p) => out.push((p.link, p.ts_ns, p.wire_len, p.data.to_vec())),
                        Err(x) => {
                            let x = s.in_stream(x);
                            e = Some(format!("{:?} at {}", x.kind, x.offset));
                        }
                    }
                }
            }
            if let Some(x) = end {
                e = Some(format!("{:?} at {}", x.kind, x.offset));
                break;
            }
            if s.done {
                break;
            }
        }
        (out, e, windows)
    }

    fn pcap(sizes: &[usize], nanos: bool) -> Vec<u8> {
        let mut w = PcapWriter::new(Vec::new(), 1, nanos).unwrap();
        for (i, &n) in sizes.iter().enumerate() {
            let data: Vec<u8> = (0..n).map(|k| (k + i) as u8).collect();
            w.write(
                1_700_000_000_000_000_000 + i as u64 * 1_000,
                &data,
                n as u32 + 4,
            )
            .unwrap();
        }
        w.finish().unwrap()
    }

    /// Two interfaces, the second described after the first packets, then a packet on each.
    fn pcapng_late_interface() -> Vec<u8> {
        let mut w = PcapngWriter::new(Vec::new()).unwrap();
        let a = w.add_interface(1).unwrap();
        for i in 0..5u64 {
            w.write(a, 1_000 + i, &[i as u8; 60], 60).unwrap();
        }
        let b = w.add_interface(101).unwrap();
        w.write(b, 2_000, &[0x45; 40], 40).unwrap();
        w.write(a, 2_001, &[7; 61], 61).unwrap();
        w.finish().unwrap()
    }

    /// The capture compressed each way (two members, frames or streams joined, as `cat` makes
    /// them), with the plain capture itself.
    fn compressed(plain: &[u8]) -> Vec<(&'static str, Vec<u8>)> {
        use std::io::Write;
        let (a, b) = plain.split_at(plain.len() / 2);
        let gz = |b: &[u8]| {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            e.write_all(b).unwrap();
            e.finish().unwrap()
        };
        let xz = |b: &[u8]| {
            let mut e = xz2::write::XzEncoder::new(Vec::new(), 1);
            e.write_all(b).unwrap();
            e.finish().unwrap()
        };
        let zst = |b: &[u8]| {
            ruzstd::encoding::compress_to_vec(b, ruzstd::encoding::CompressionLevel::Fastest)
        };
        vec![
            ("plain", plain.to_vec()),
            ("gzip", [gz(a), gz(b)].concat()),
            ("xz", [xz(a), xz(b)].concat()),
            ("zstd", [zst(a), zst(b)].concat()),
        ]
    }

    /// Issue 33: a compressed capture on standard input (`gzip -c x.pcap | wirespeed classify
    /// -`) was refused as an unknown format: a stream is told compressed by its first bytes, as
    /// a file is, even when they arrive one at a time.
    #[test]
    fn compressed_streams_are_told_by_their_first_bytes() {
        let plain = pcap(&[60, 1500, 0, 9000, 64, 1], true);
        let (want, none) = whole(&plain);
        assert_eq!((want.len(), none), (6, None));
        for (what, bytes) in compressed(&plain) {
            for chunk in [1, 4, 1 << 16] {
                let src = io::BufReader::with_capacity(chunk, io::Cursor::new(bytes.clone()));
                let s = from_reader(src, Path::new("-")).unwrap();
                let (got, e, _) = drain(s);
                assert_eq!(e, None, "{what}, {chunk}-byte reads");
                assert!(got == want, "{what}, {chunk}-byte reads");
            }
        }
        // Shorter than any magic, and empty: the reader's own errors, no panic.
        for short in [&plain[..3], &[0x1f][..], &[][..]] {
            let s = from_reader(io::Cursor::new(short.to_vec()), Path::new("-")).unwrap();
            let (got, e, _) = drain(s);
            assert!(got.is_empty() && e.is_some(), "{short:?}");
        }
    }

    /// The same through a FIFO (`wirespeed classify <(zcat …)`'s sibling `<(cat x.pcap.gz)`),
    /// opened by path as the command line does.
    #[cfg(unix)]
    #[test]
    fn a_compressed_fifo_is_decompressed() {
        let dir =
            std::env::temp_dir().join(format!("wirespeed-capture-fifo-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let fifo = dir.join("in.pcap.gz");
        let _ = std::fs::remove_file(&fifo);
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if !made.is_ok_and(|s| s.success()) {
            eprintln!("SKIPPED: mkfifo did not run");
            return;
        }
        let plain = pcapng_late_interface();
        let (want, _) = whole(&plain);
        let gz = compressed(&plain).swap_remove(1);
        assert_eq!(gz.0, "gzip");
        let writer = {
            let fifo = fifo.clone();
            // Opening for writing waits for the reader below; no timing involved.
            std::thread::spawn(move || std::fs::write(fifo, gz.1))
        };
        assert!(is_stream(&fifo));
        let (got, e, _) = drain(open(&fifo).unwrap());
        writer.join().unwrap().unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(e, None);
        assert!(got == want);
    }

    #[test]
    fn windows_hand_out_what_the_whole_file_holds() {
        let p = pcap(&[60, 1514, 0, 9000, 42, 64], true);
        for window in [1, 100, 1600, 1 << 20] {
            assert_eq!(streamed(&p, window).0, whole(&p).0, "window {window}");
        }
        assert_eq!(streamed(&p, 1).2, 6, "one record a window");
        assert_eq!(streamed(&p, 1 << 20).2, 1);
        let g = pcapng_late_interface();
        let (want, _) = whole(&g);
        assert_eq!(want.iter().filter(|p| p.0 == 101).count(), 1);
        for window in [1, 64, 300, 1 << 20] {
            assert_eq!(streamed(&g, window).0, want, "window {window}");
        }
    }

    #[test]
    fn sections_concatenated() {
        let mut two = pcapng_late_interface();
        let mut w = PcapngWriter::new(Vec::new()).unwrap();
        let i = w.add_interface(228).unwrap();
        w.write(i, 9, &[0x45; 20], 20).unwrap();
        two.extend(w.finish().unwrap());
        let (want, e) = whole(&two);
        assert!(e.is_none());
        assert_eq!(want.last().map(|p| p.0), Some(228));
        for window in [1, 200, 1 << 20] {
            assert_eq!(streamed(&two, window).0, want, "window {window}");
        }
    }

    #[test]
    fn a_cut_stream_yields_its_whole_records_then_the_error_where_the_file_reader_says() {
        let p = pcap(&[60, 100, 80], false);
        for cut in [p.len() - 1, p.len() - 80, 24 + 16 + 60 + 3] {
            let (good, e) = whole(&p[..cut]);
            for window in [1, 1 << 20] {
                let (got, ge, _) = streamed(&p[..cut], window);
                assert_eq!(got, good, "cut {cut}");
                assert_eq!(ge, e, "cut {cut}");
                assert!(ge.is_some());
            }
        }
        let g = pcapng_late_interface();
        let (good, e) = whole(&g[..g.len() - 5]);
        let (got, ge, _) = streamed(&g[..g.len() - 5], 64);
        assert_eq!((got, ge), (good, e));
    }

    #[test]
    fn bad_starts_and_hostile_lengths() {
        assert!(streamed(&[], 64).1.unwrap().contains("Empty"));
        assert!(streamed(&[0xd4, 0xc3], 64).1.unwrap().contains("Truncated"));
        assert!(streamed(b"nope, not a capture", 64)
            .1
            .unwrap()
            .contains("UnknownFormat"));
        // A pcap record claiming 17 MiB: refused before reading it.
        let mut p = pcap(&[60], false);
        p[24 + 8..24 + 12].copy_from_slice(&(17u32 << 20).to_le_bytes());
        assert!(streamed(&p, 64).1.unwrap().contains("Corrupt"));
        // Endless interface descriptions: refused past 1 MiB instead of held.
        let mut w = PcapngWriter::new(Vec::new()).unwrap();
        for _ in 0..(MAX_HEADER / 20 + 10) {
            w.add_interface(1).unwrap();
        }
        let g = w.finish().unwrap();
        let (_, e, _) = streamed(&g, 1 << 16);
        assert!(e.unwrap().contains("interface descriptions"));
    }

    proptest! {
        #[test]
        fn any_window_any_sizes(sizes in proptest::collection::vec(0usize..3000, 0..40),
                                window in 1usize..5000, nanos in any::<bool>()) {
            let p = pcap(&sizes, nanos);
            prop_assert_eq!(streamed(&p, window).0, whole(&p).0);
        }

        #[test]
        fn any_bytes_never_panic(b in proptest::collection::vec(any::<u8>(), 0..600),
                                 window in 1usize..700) {
            let _ = streamed(&b, window);
            let mut g = pcapng_late_interface();
            g.extend_from_slice(&b);
            let _ = streamed(&g, window);
        }
    }
}
