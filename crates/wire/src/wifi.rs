//! IEEE 802.11: data frames carrying LLC/SNAP, and the monitor-mode capture headers that come
//! before a frame (radiotap, Prism, AVS; PPI is read in `link`). The data-frame reader
//! [`data_body`] is shared with CAPWAP's native 802.11 binding (`tunnel`).
//!
//! Only data frames carry IP: management and control frames, and data frames without a body
//! (Null, QoS Null), are [`DropReason::WifiNotData`]; a Protected frame whose body is not LLC/SNAP
//! (encrypted, so unreadable) is [`DropReason::WifiEncrypted`]; another LLC is
//! [`DropReason::NotIp`].

use crate::decode::Ctx;
use crate::link::ether_payload;
use crate::read::{chunk, h16, h32, h8, u8_at};
use crate::{Decoded, DropReason};

/// Most radiotap presence bitmaps (`it_present` words) read; bit 31 of each announces another.
/// A header announcing more is dropped as [`DropReason::TruncatedLink`].
pub const MAX_RADIOTAP_PRESENT: usize = 8;

/// The MAC header of a data frame (IEEE 802.11-2020 §9.2.4.1, §9.3.2.1).
mod mac {
    pub const FC0: usize = 0;
    pub const FC1: usize = 1;
    pub const FC: usize = 2;
    /// Frame control byte 0: protocol version in bits 0-1, type in bits 2-3 (2 = data),
    /// subtype in bits 4-7.
    pub const VERSION_MASK: u8 = 0x03;
    pub const TYPE_MASK: u8 = 0x0c;
    pub const TYPE_DATA: u8 = 0x08;
    /// Subtype bit 2: no frame body (Null, QoS Null, CF-Ack/Poll without data).
    pub const NO_DATA: u8 = 0x40;
    /// Subtype bit 3: QoS data, a 2-byte QoS control field follows the addresses.
    pub const QOS: u8 = 0x80;
    /// Frame control byte 1: To DS and From DS both set add a fourth address.
    pub const DS_MASK: u8 = 0x03;
    /// Protected frame: the body is encrypted (WEP, TKIP, CCMP, GCMP).
    pub const PROTECTED: u8 = 0x40;
    /// +HTC/Order: in a QoS data frame, a 4-byte HT control field follows QoS control.
    pub const ORDER: u8 = 0x80;
    /// Frame control, duration, three addresses, sequence control.
    pub const HDR: usize = 24;
    pub const ADDR4: usize = 6;
    pub const QOS_CTRL: usize = 2;
    /// QoS control, first byte, bit 7: the body is an A-MSDU.
    pub const AMSDU: u8 = 0x80;
    pub const HT_CTRL: usize = 4;
    /// An A-MSDU subframe header (destination, source, length) before the first MSDU.
    pub const AMSDU_SUBHDR: usize = 14;
    /// Capture headers that pad the MAC header to a multiple of 4 (radiotap's DATAPAD).
    pub const PAD: usize = 4;
}

/// LLC/SNAP before the ethertype (RFC 1042 and 802.1H encapsulation).
mod snap {
    use core::ops::Range;
    /// DSAP AA, SSAP AA, control 03 (UI).
    pub const LLC: [u8; 3] = [0xaa, 0xaa, 0x03];
    pub const LLC_LEN: usize = 3;
    /// OUIs: RFC 1042 (00-00-00) and 802.1H bridge tunnel (00-00-F8).
    pub const OUI: Range<usize> = 3..6;
    pub const OUI_RFC1042: [u8; 3] = [0x00, 0x00, 0x00];
    pub const OUI_BRIDGE_TUNNEL: [u8; 3] = [0x00, 0x00, 0xf8];
    pub const TYPE: Range<usize> = 6..8;
    pub const HDR: usize = 8;
}

/// Radiotap header (radiotap.org): version, pad, length and presence bitmaps little-endian.
mod radiotap {
    use core::ops::Range;
    pub const VERSION: usize = 0;
    pub const LEN: Range<usize> = 2..4;
    pub const PRESENT: Range<usize> = 4..8;
    pub const HDR: usize = 8;
    pub const WORD: usize = 4;
    /// Presence bits: TSFT (8 bytes, 8-aligned), Flags (1 byte), another bitmap follows.
    pub const P_TSFT: u32 = 1 << 0;
    pub const P_FLAGS: u32 = 1 << 1;
    pub const P_EXT: u32 = 1 << 31;
    pub const TSFT_LEN: usize = 8;
    /// Flags: padding between the MAC header and the body, to a 32-bit boundary.
    pub const F_DATAPAD: u8 = 0x20;
}

/// Prism monitor-mode header: message code, length, device name and ten DID items.
mod prism {
    pub const HDR: usize = 144;
}

/// AVS (wlancap) monitor-mode header: magic and version, header length, then radio fields.
mod avs {
    use core::ops::Range;
    pub const MAGIC: Range<usize> = 0..4;
    pub const LEN: Range<usize> = 4..8;
    pub const HDR: usize = 8;
    /// 0x80211001 (version 1) and 0x80211002 (version 2).
    pub const MAGIC_MASK: u32 = 0xffff_fff0;
    pub const MAGIC_BASE: u32 = 0x8021_1000;
}

/// Whether frame-control byte 0 `fc0` names a data frame (CAPWAP uses it to tell which order
/// the two frame-control bytes came in).
pub(crate) fn is_data(fc0: u8) -> bool {
    fc0 & mac::TYPE_MASK == mac::TYPE_DATA
}

/// The ethertype and the offset of what it types, for the 802.11 data frame at `off` whose frame
/// control bytes are `fc` (passed apart so that CAPWAP can hand them over swapped). `pad`: the
/// capture pads the MAC header to a multiple of 4 bytes.
///
/// The Protected flag alone does not decide: a frame decrypted by the capturing device may keep
/// it (CAPWAP access points do), so the body is read first and the flag only names why a body
/// that is not LLC/SNAP cannot be read.
pub(crate) fn data_body(
    f: &[u8],
    off: usize,
    fc: [u8; mac::FC],
    pad: bool,
) -> Result<(u16, usize), DropReason> {
    let (fc0, fc1) = (h8(&fc, mac::FC0), h8(&fc, mac::FC1));
    if fc0 & mac::VERSION_MASK != 0 || !is_data(fc0) || fc0 & mac::NO_DATA != 0 {
        return Err(DropReason::WifiNotData);
    }
    let mut hdr = mac::HDR;
    if fc1 & mac::DS_MASK == mac::DS_MASK {
        hdr += mac::ADDR4;
    }
    let mut amsdu = false;
    if fc0 & mac::QOS != 0 {
        let qos = u8_at(f, off + hdr).ok_or(DropReason::TruncatedLink)?;
        amsdu = qos & mac::AMSDU != 0;
        hdr += mac::QOS_CTRL;
        if fc1 & mac::ORDER != 0 {
            hdr += mac::HT_CTRL;
        }
    }
    if pad {
        hdr = hdr.next_multiple_of(mac::PAD);
    }
    let mut body = off + hdr;
    if amsdu {
        // The first MSDU of the aggregate: later ones are not read.
        body += mac::AMSDU_SUBHDR;
    }
    let Some(s) = chunk::<{ snap::HDR }>(f, body) else {
        return Err(if fc1 & mac::PROTECTED != 0 && body <= f.len() {
            DropReason::WifiEncrypted
        } else {
            DropReason::TruncatedLink
        });
    };
    let oui = s.get(snap::OUI).unwrap_or(&[]);
    if s.get(..snap::LLC_LEN) == Some(&snap::LLC[..])
        && (oui == snap::OUI_RFC1042 || oui == snap::OUI_BRIDGE_TUNNEL)
    {
        return Ok((h16(s, snap::TYPE), body + snap::HDR));
    }
    Err(if fc1 & mac::PROTECTED != 0 {
        DropReason::WifiEncrypted
    } else {
        DropReason::NotIp
    })
}

/// An 802.11 frame at `off` (link type 105, or after a capture header).
pub(crate) fn frame<'a>(
    f: &'a [u8],
    off: usize,
    ctx: &mut Ctx,
    pad: bool,
) -> Result<Decoded<'a>, DropReason> {
    let fc = chunk::<{ mac::FC }>(f, off).ok_or(DropReason::TruncatedLink)?;
    let (et, at) = data_body(f, off, *fc, pad)?;
    ether_payload(f, at, et, ctx)
}

/// A radiotap header at `off` (link type 127), then the 802.11 frame after its length. Of its
/// fields only Flags is read, for DATAPAD.
pub(crate) fn radiotap<'a>(
    f: &'a [u8],
    off: usize,
    ctx: &mut Ctx,
) -> Result<Decoded<'a>, DropReason> {
    let h = chunk::<{ radiotap::HDR }>(f, off).ok_or(DropReason::TruncatedLink)?;
    if h8(h, radiotap::VERSION) != 0 {
        return Err(DropReason::UnsupportedLinkType);
    }
    let len = usize::from(h16(h, radiotap::LEN).swap_bytes());
    let first = h32(h, radiotap::PRESENT).swap_bytes();
    // The fields start after the last presence bitmap.
    let mut fields = radiotap::HDR;
    let mut present = first;
    let mut words = 1;
    while present & radiotap::P_EXT != 0 {
        words += 1;
        if words > MAX_RADIOTAP_PRESENT {
            return Err(DropReason::TruncatedLink);
        }
        let w = chunk::<{ radiotap::WORD }>(f, off + fields).ok_or(DropReason::TruncatedLink)?;
        present = u32::from_le_bytes(*w);
        fields += radiotap::WORD;
    }
    if len < fields {
        return Err(DropReason::TruncatedLink);
    }
    let mut pad = false;
    if first & radiotap::P_FLAGS != 0 {
        // Fields are aligned to their size from the start of the header; only TSFT comes before
        // Flags.
        let mut at = fields;
        if first & radiotap::P_TSFT != 0 {
            at = at.next_multiple_of(radiotap::TSFT_LEN) + radiotap::TSFT_LEN;
        }
        if at >= len {
            return Err(DropReason::TruncatedLink);
        }
        let flags = u8_at(f, off + at).ok_or(DropReason::TruncatedLink)?;
        pad = flags & radiotap::F_DATAPAD != 0;
    }
    frame(f, off + len, ctx, pad)
}

/// A Prism header at `off` (link type 119), or the AVS header some such captures hold instead.
pub(crate) fn prism<'a>(f: &'a [u8], off: usize, ctx: &mut Ctx) -> Result<Decoded<'a>, DropReason> {
    let h = chunk::<{ avs::HDR }>(f, off).ok_or(DropReason::TruncatedLink)?;
    if h32(h, avs::MAGIC) & avs::MAGIC_MASK == avs::MAGIC_BASE {
        return avs(f, off, ctx);
    }
    frame(f, off + prism::HDR, ctx, false)
}

/// An AVS header at `off` (link type 163): magic, then its own length (big-endian).
pub(crate) fn avs<'a>(f: &'a [u8], off: usize, ctx: &mut Ctx) -> Result<Decoded<'a>, DropReason> {
    let h = chunk::<{ avs::HDR }>(f, off).ok_or(DropReason::TruncatedLink)?;
    if h32(h, avs::MAGIC) & avs::MAGIC_MASK != avs::MAGIC_BASE {
        return Err(DropReason::UnsupportedLinkType);
    }
    let len = usize::try_from(h32(h, avs::LEN)).unwrap_or(usize::MAX);
    if len < avs::HDR {
        return Err(DropReason::TruncatedLink);
    }
    frame(f, off.saturating_add(len), ctx, false)
}
