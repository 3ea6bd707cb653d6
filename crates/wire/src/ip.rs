//! IPv4 and IPv6 (with extension headers and fragments).

use crate::decode::Ctx;
use crate::l4::transport;
use crate::read::{addr, chunk, cut, h16, h32, h8, rest, u8_at};
use crate::{Decoded, DropReason, Fragment};

/// Most IPv6 extension headers accepted before the transport.
pub const MAX_IPV6_EXT: usize = 8;

/// IPv4 header (RFC 791).
mod v4 {
    use core::ops::Range;
    pub const VER_IHL: usize = 0;
    pub const TOTAL_LEN: Range<usize> = 2..4;
    pub const IDENT: Range<usize> = 4..6;
    pub const FLAGS_FRAG: Range<usize> = 6..8;
    pub const TTL: usize = 8;
    pub const PROTO: usize = 9;
    pub const SRC: Range<usize> = 12..16;
    pub const DST: Range<usize> = 16..20;
    /// Fixed part; options follow up to IHL * 4.
    pub const HDR: usize = 20;
    pub const MORE_FRAGMENTS: u16 = 0x2000;
    pub const OFFSET_MASK: u16 = 0x1fff;
}

/// IPv6 header (RFC 8200).
mod v6 {
    use core::ops::Range;
    pub const VERSION: usize = 0;
    pub const PAYLOAD_LEN: Range<usize> = 4..6;
    pub const NEXT: usize = 6;
    pub const HOP_LIMIT: usize = 7;
    pub const SRC: Range<usize> = 8..24;
    pub const DST: Range<usize> = 24..40;
    pub const HDR: usize = 40;
}

/// IPv6 extension headers: the generic next-header/length prefix and the fragment header.
mod ext {
    use core::ops::Range;
    pub const NEXT: usize = 0;
    pub const LEN: usize = 1;
    pub const PREFIX: usize = 2;
    pub const FRAG_OFFSET: Range<usize> = 2..4;
    pub const FRAG_IDENT: Range<usize> = 4..8;
    pub const FRAG_HDR: usize = 8;
    pub const FRAG_OFFSET_MASK: u16 = 0xfff8;
    pub const FRAG_MORE: u16 = 0x0001;
}

/// IPv6 next-header values that are extension headers.
mod nh {
    pub const HOP_BY_HOP: u8 = 0;
    pub const ROUTING: u8 = 43;
    pub const FRAGMENT: u8 = 44;
    pub const AH: u8 = 51;
    pub const DEST_OPTS: u8 = 60;
}

/// What the transport and tunnel layers need from the IP header they sit on.
pub(crate) struct Ip {
    pub(crate) version: u8,
    pub(crate) src: [u8; 16],
    pub(crate) dst: [u8; 16],
    pub(crate) proto: u8,
    pub(crate) ttl: u8,
    pub(crate) l3_offset: usize,
    pub(crate) ip_len: usize,
    pub(crate) frag: Option<Fragment>,
}

impl Ip {
    /// The flow of this IP packet with no transport fields; `payload` starts at `at`.
    #[inline(always)]
    pub(crate) fn flow<'a>(&self, f: &'a [u8], at: usize, ctx: &Ctx) -> Decoded<'a> {
        Decoded {
            ip_version: self.version,
            src: self.src,
            dst: self.dst,
            proto: self.proto,
            src_port: 0,
            dst_port: 0,
            vlan: ctx.vlan,
            tunnel: ctx.tunnel,
            ttl: self.ttl,
            l3_offset: u16::try_from(self.l3_offset).unwrap_or(u16::MAX),
            ip_len: u16::try_from(self.ip_len).unwrap_or(u16::MAX),
            tcp: None,
            icmp: None,
            frag: self.frag,
            payload: rest(f, at),
        }
    }

    /// A later fragment: its data is not a transport header.
    #[inline]
    pub(crate) fn is_later_fragment(&self) -> bool {
        self.frag.is_some_and(|fr| fr.offset != 0)
    }
}

/// Raw IP: the version nibble decides.
pub(crate) fn ip_any<'a>(
    f: &'a [u8],
    off: usize,
    ctx: &mut Ctx,
) -> Result<Decoded<'a>, DropReason> {
    match u8_at(f, off).ok_or(DropReason::TruncatedLink)? >> 4 {
        4 => ipv4(f, off, ctx),
        6 => ipv6(f, off, ctx),
        _ => Err(DropReason::NotIp),
    }
}

/// An IPv4 packet at `off`.
pub(crate) fn ipv4<'a>(f: &'a [u8], off: usize, ctx: &mut Ctx) -> Result<Decoded<'a>, DropReason> {
    let h = chunk::<{ v4::HDR }>(f, off).ok_or(DropReason::TruncatedIpv4)?;
    let vi = h8(h, v4::VER_IHL);
    if vi >> 4 != 4 {
        return Err(DropReason::MalformedIpv4);
    }
    let ihl = usize::from(vi & 0x0f) * 4;
    if ihl < v4::HDR {
        return Err(DropReason::MalformedIpv4);
    }
    let captured = f.len().saturating_sub(off);
    if captured < ihl {
        return Err(DropReason::TruncatedIpv4);
    }
    // Zero is what segmentation offload leaves in captures: use what was captured.
    let total = match usize::from(h16(h, v4::TOTAL_LEN)) {
        0 => captured,
        t if t < ihl => return Err(DropReason::MalformedIpv4),
        t => t,
    };
    // Ethernet padding after the packet is not payload.
    let f = cut(f, off + total);
    let ff = h16(h, v4::FLAGS_FRAG);
    let offset = (ff & v4::OFFSET_MASK) << 3;
    let more = ff & v4::MORE_FRAGMENTS != 0;
    let frag = (more || offset != 0).then(|| Fragment {
        id: u32::from(h16(h, v4::IDENT)),
        offset,
        more,
    });
    let ip = Ip {
        version: 4,
        src: addr(h, v4::SRC),
        dst: addr(h, v4::DST),
        proto: h8(h, v4::PROTO),
        ttl: h8(h, v4::TTL),
        l3_offset: off,
        ip_len: total,
        frag,
    };
    transport(f, off + ihl, &ip, ctx)
}

/// An IPv6 packet at `off`, through its extension headers to the transport.
pub(crate) fn ipv6<'a>(f: &'a [u8], off: usize, ctx: &mut Ctx) -> Result<Decoded<'a>, DropReason> {
    let h = chunk::<{ v6::HDR }>(f, off).ok_or(DropReason::TruncatedIpv6)?;
    if h8(h, v6::VERSION) >> 4 != 6 {
        return Err(DropReason::MalformedIpv6);
    }
    // Zero: a jumbogram or an offloaded segment; use what was captured.
    let total = match usize::from(h16(h, v6::PAYLOAD_LEN)) {
        0 => f.len().saturating_sub(off),
        n => v6::HDR + n,
    };
    let f = cut(f, off + total);
    let mut next = h8(h, v6::NEXT);
    let mut at = off + v6::HDR;
    let mut frag = None;
    let mut n = 0;
    loop {
        match next {
            nh::HOP_BY_HOP | nh::ROUTING | nh::DEST_OPTS => {
                let e = chunk::<{ ext::PREFIX }>(f, at).ok_or(DropReason::TruncatedIpv6)?;
                next = h8(e, ext::NEXT);
                at += (usize::from(h8(e, ext::LEN)) + 1) * 8;
            }
            nh::AH => {
                let e = chunk::<{ ext::PREFIX }>(f, at).ok_or(DropReason::TruncatedIpv6)?;
                next = h8(e, ext::NEXT);
                at += (usize::from(h8(e, ext::LEN)) + 2) * 4;
            }
            nh::FRAGMENT => {
                let e = chunk::<{ ext::FRAG_HDR }>(f, at).ok_or(DropReason::TruncatedIpv6)?;
                next = h8(e, ext::NEXT);
                at += ext::FRAG_HDR;
                let fo = h16(e, ext::FRAG_OFFSET);
                let offset = fo & ext::FRAG_OFFSET_MASK;
                let more = fo & ext::FRAG_MORE != 0;
                if more || offset != 0 {
                    frag = Some(Fragment {
                        id: h32(e, ext::FRAG_IDENT),
                        offset,
                        more,
                    });
                }
                if offset != 0 {
                    // A later fragment: what follows is data, not headers.
                    break;
                }
            }
            // The transport, ESP (50), no next header (59), mobility (135), ...
            _ => break,
        }
        n += 1;
        if n > MAX_IPV6_EXT {
            return Err(DropReason::MalformedIpv6);
        }
        if at > f.len() {
            return Err(DropReason::TruncatedIpv6);
        }
    }
    let ip = Ip {
        version: 6,
        src: addr(h, v6::SRC),
        dst: addr(h, v6::DST),
        proto: next,
        ttl: h8(h, v6::HOP_LIMIT),
        l3_offset: off,
        ip_len: total,
        frag,
    };
    transport(f, at, &ip, ctx)
}
