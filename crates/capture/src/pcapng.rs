//! pcapng: sections in either byte order, interfaces with their own link type, timestamp
//! resolution and offset, options; the block reader and the writer.

use crate::*;
use std::io::{self, Write};

/// pcapng Section Header Block type (a palindrome, the same in both byte orders).
pub(crate) const PCAPNG_SHB: u32 = 0x0A0D_0D0A;

/// pcapng byte-order magic.
pub(crate) const PCAPNG_BOM: u32 = 0x1A2B_3C4D;

/// A pcapng section's byte order from its byte-order magic read little-endian: big-endian or
/// not; None for a bad magic.
pub(crate) fn bom_order(bom: u32) -> Option<bool> {
    match bom {
        PCAPNG_BOM => Some(false),
        b if b.swap_bytes() == PCAPNG_BOM => Some(true),
        _ => None,
    }
}

/// A pcapng timestamp unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TsUnit {
    /// 10^-n seconds.
    Pow10(u8),
    /// 2^-n seconds.
    Pow2(u8),
}

/// A pcapng interface of the current section.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Iface {
    link: u32,
    unit: TsUnit,
    /// if_tsoffset: seconds added to every timestamp.
    offset_s: i64,
}

/// Convert a pcapng timestamp to nanoseconds since the epoch, saturating at 0 and `u64::MAX`
/// rather than overflowing on hostile values.
pub(crate) fn pcapng_ts_ns(ts: u64, unit: TsUnit, offset_s: i64) -> u64 {
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

/// Iterator over a pcapng options area: `(code, value)` until `opt_endofopt` or the end. A
/// malformed option (its length past the end of the area) ends the iteration: options never
/// make a file unreadable.
pub(crate) struct Options<'a> {
    b: &'a [u8],
    be: bool,
}

impl<'a> Options<'a> {
    pub(crate) fn new(b: &'a [u8], be: bool) -> Self {
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

impl<'a> PacketReader<'a> {
    pub(crate) fn next_pcapng(&mut self) -> Result<Option<RawPacket<'a>>, CaptureError> {
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
