//! Classic pcap: the record reader (both byte orders, micro- and nanosecond timestamps, every
//! version's length order) and the writer.

use crate::*;

/// Largest record a pcap file may claim (unless its snaplen is larger) before it is called corrupt
/// rather than truncated.
pub(crate) const PCAP_MAX_CAPLEN: u32 = 256 * 1024;

/// Order of the caplen and len fields in pcap records, by file version.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LenOrder {
    /// Version 2.4 and later: caplen, then len.
    Normal,
    /// Versions 2.0–2.2: len, then caplen.
    Swapped,
    /// Version 2.3: swapped when caplen > len.
    Maybe,
}

/// Records [`Shape::chain`] wants in a row before it calls an offset a record's start.
pub(crate) const CHAIN: usize = 16;

/// What a file's header says its records look like, for guessing where one starts.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Shape {
    pub(crate) be: bool,
    pub(crate) nanos: bool,
    pub(crate) max_caplen: u32,
    pub(crate) lens: LenOrder,
}

impl Shape {
    /// The record at `at`, if its header is plausible: the offset just past it.
    fn record(&self, b: &[u8], at: usize) -> Option<usize> {
        let head = b.get(at..at.checked_add(16)?)?;
        let frac = rd32(head, 4, self.be);
        let (mut caplen, mut origlen) = (rd32(head, 8, self.be), rd32(head, 12, self.be));
        if self.lens == LenOrder::Swapped || (self.lens == LenOrder::Maybe && caplen > origlen) {
            (caplen, origlen) = (origlen, caplen);
        }
        let second = if self.nanos { 1_000_000_000 } else { 1_000_000 };
        if frac >= second || caplen > self.max_caplen || caplen > origlen || origlen == 0 {
            return None;
        }
        let next = at + 16 + caplen as usize;
        (next <= b.len()).then_some(next)
    }

    /// [`CHAIN`] plausible records from `at` on, or plausible ones up to the end of `b` exactly.
    pub(crate) fn chain(&self, b: &[u8], mut at: usize) -> bool {
        for _ in 0..CHAIN {
            if at == b.len() {
                return true;
            }
            match self.record(b, at) {
                Some(next) => at = next,
                None => return false,
            }
        }
        true
    }
}

impl<'a> PacketReader<'a> {
    #[inline]
    pub(crate) fn next_pcap(
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
        // The header once, as an array: its four fields without a bounds check each.
        let head: [u8; 16] = bytes_at(b, at);
        let field = |i: usize| {
            let w = [head[i], head[i + 1], head[i + 2], head[i + 3]];
            if be {
                u32::from_be_bytes(w)
            } else {
                u32::from_le_bytes(w)
            }
        };
        let (sec, frac) = (field(0), field(4));
        let (mut caplen, mut origlen) = (field(8), field(12));
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
