//! Tunnels: GRE (versions 0 and 1), VXLAN, GTP-U, CAPWAP data and IP in IP. Each returns the inner flow, or
//! `None` when the outer packet should stand as the flow (tunnels off, nesting cap reached,
//! not this tunnel after all, or an inner packet that does not decode). Only a GRE header cut
//! short is an error.

use crate::decode::Ctx;
use crate::ip::{ip_any, ipv4, ipv6};
use crate::link::{ether_payload, ethernet, ppp_frame};
use crate::read::{chunk, h16, h8, u8_at};
use crate::{Decoded, DropReason, Tunnel};

/// Most tunnel levels removed; a deeper packet is returned as the flow at the cap.
pub const MAX_TUNNEL_DEPTH: u8 = 4;
/// Most GTP-U extension headers followed.
pub const MAX_GTP_EXT: usize = 8;
/// UDP destination port of VXLAN (RFC 7348).
pub const VXLAN_PORT: u16 = 4789;
/// UDP port of GTP-U (either side).
pub const GTPU_PORT: u16 = 2152;
/// UDP port of the CAPWAP data channel (RFC 5415 §15.1; either side).
pub const CAPWAP_DATA_PORT: u16 = 5247;

/// GRE header (RFC 2784, keys and sequence numbers of RFC 2890; version 1 of RFC 2637).
mod gre {
    use core::ops::Range;
    pub const FLAGS: Range<usize> = 0..2;
    pub const PROTO: Range<usize> = 2..4;
    pub const HDR: usize = 4;
    pub const CHECKSUM: u16 = 0x8000;
    pub const ROUTING: u16 = 0x4000;
    pub const KEY: u16 = 0x2000;
    pub const SEQ: u16 = 0x1000;
    /// Version 1 only: an acknowledgment number follows.
    pub const ACK: u16 = 0x0080;
    pub const VERSION: u16 = 0x0007;
    /// Each optional field is 4 bytes.
    pub const OPT: usize = 4;
    /// Protocol types that are not plain ethertypes.
    pub const TEB: u16 = 0x6558;
    pub const ERSPAN_2: u16 = 0x88be;
    pub const ERSPAN_3: u16 = 0x22eb;
    pub const PPP: u16 = 0x880b;
}

/// ERSPAN headers between GRE and the mirrored Ethernet frame.
mod erspan {
    pub const TYPE_2_HDR: usize = 8;
    pub const TYPE_3_HDR: usize = 12;
    /// Type III: the O flag (last bit of the header) announces an 8-byte platform subheader.
    pub const TYPE_3_O_BYTE: usize = 11;
    pub const TYPE_3_O: u8 = 0x01;
    pub const TYPE_3_SUBHDR: usize = 8;
}

/// VXLAN header.
mod vxlan {
    pub const FLAGS: usize = 0;
    pub const I: u8 = 0x08;
    pub const HDR: usize = 8;
}

/// CAPWAP header (RFC 5415 §4.3): preamble, then HLEN (5 bits, in 4-byte words, optional
/// fields included), RID (5), WBID (5), the T F L W M K flags and 3 reserved bits.
mod capwap {
    pub const PREAMBLE: usize = 0;
    pub const HLEN_BYTE: usize = 1;
    pub const HLEN_SHIFT: u8 = 3;
    pub const WBID_BYTE: usize = 2;
    pub const WBID_SHIFT: u8 = 1;
    pub const WBID_MASK: u8 = 0x1f;
    /// WBID of IEEE 802.11 (RFC 5416).
    pub const WBID_80211: u8 = 1;
    /// T (in the WBID byte): the payload is in the binding's native format, not 802.3.
    pub const T: u8 = 0x01;
    pub const FLAGS_BYTE: usize = 3;
    /// F: a fragment; K: a keep-alive (no payload).
    pub const F: u8 = 0x80;
    pub const K: u8 = 0x08;
    /// The fixed part: preamble and the 3 bytes above, then fragment id and offset.
    pub const MIN_HDR: usize = 8;
    pub const WORD: usize = 4;
}

/// IEEE 802.11 data frame header (IEEE 802.11-2020 §9.3.2.1) and the LLC/SNAP header after it.
mod wifi {
    pub const FC0: usize = 0;
    pub const FC1: usize = 1;
    /// Frame control byte 0: type in bits 2-3 (2 = data), subtype in bits 4-7.
    pub const TYPE_MASK: u8 = 0x0c;
    pub const TYPE_DATA: u8 = 0x08;
    /// Subtype bit 2: no frame body (Null, QoS Null, CF-Ack/Poll without data).
    pub const NO_DATA: u8 = 0x40;
    /// Subtype bit 3: QoS data, a 2-byte QoS control field follows the addresses.
    pub const QOS: u8 = 0x80;
    /// Frame control byte 1: To DS and From DS both set add a fourth address.
    pub const DS_MASK: u8 = 0x03;
    /// +HTC/Order: with QoS, a 4-byte HT control field.
    pub const ORDER: u8 = 0x80;
    pub const HDR: usize = 24;
    pub const QOS_CTRL: usize = 2;
    pub const ADDR4: usize = 6;
    pub const HT_CTRL: usize = 4;
    /// LLC/SNAP: DSAP AA, SSAP AA, control 03, OUI 00 00 00, then the ethertype.
    pub const SNAP: [u8; 6] = [0xaa, 0xaa, 0x03, 0x00, 0x00, 0x00];
    pub const SNAP_LEN: usize = 8;
}

/// GTPv1-U header (3GPP TS 29.281).
mod gtp {
    pub const FLAGS: usize = 0;
    pub const MSG_TYPE: usize = 1;
    pub const HDR: usize = 8;
    /// Sequence number, N-PDU number and next extension type, present if any of E/S/PN.
    pub const OPT_HDR: usize = 12;
    pub const NEXT_EXT: usize = 11;
    pub const VERSION_SHIFT: u8 = 5;
    pub const VERSION_1: u8 = 1;
    pub const PT: u8 = 0x10;
    pub const E: u8 = 0x04;
    pub const E_S_PN: u8 = 0x07;
    pub const G_PDU: u8 = 0xff;
    /// Extension headers count their length in 4-byte units.
    pub const EXT_UNIT: usize = 4;
}

/// Does a UDP datagram between these ports carry a tunnel the decoder opens ([`over_udp`])?
/// The decoder and the fast path ([`crate::fast`]) share this one answer.
#[inline]
pub(crate) fn carries_tunnel(sport: u16, dport: u16) -> bool {
    dport == VXLAN_PORT
        || sport == GTPU_PORT
        || dport == GTPU_PORT
        || sport == CAPWAP_DATA_PORT
        || dport == CAPWAP_DATA_PORT
}

/// VXLAN, GTP-U or CAPWAP data inside a UDP datagram whose payload starts at `at`.
#[inline]
pub(crate) fn over_udp<'a>(
    f: &'a [u8],
    at: usize,
    sport: u16,
    dport: u16,
    ctx: &mut Ctx,
) -> Option<Decoded<'a>> {
    if dport == VXLAN_PORT {
        vxlan(f, at, ctx)
    } else if sport == GTPU_PORT || dport == GTPU_PORT {
        gtpu(f, at, ctx)
    } else if sport == CAPWAP_DATA_PORT || dport == CAPWAP_DATA_PORT {
        capwap_data(f, at, ctx)
    } else {
        None
    }
}

/// IP in IP (protocols 4 and 41): the inner packet at `at`.
#[inline]
pub(crate) fn ip_in_ip<'a>(f: &'a [u8], at: usize, v6: bool, ctx: &mut Ctx) -> Option<Decoded<'a>> {
    ctx.tunnel(Tunnel::IpInIp, |ctx| {
        if v6 {
            ipv6(f, at, ctx)
        } else {
            ipv4(f, at, ctx)
        }
    })
}

/// VXLAN (RFC 7348): the I flag, then an Ethernet frame.
fn vxlan<'a>(f: &'a [u8], at: usize, ctx: &mut Ctx) -> Option<Decoded<'a>> {
    let h = chunk::<{ vxlan::HDR }>(f, at)?;
    if h8(h, vxlan::FLAGS) & vxlan::I == 0 {
        return None;
    }
    ctx.tunnel(Tunnel::Vxlan, |ctx| ethernet(f, at + vxlan::HDR, ctx))
}

/// CAPWAP data (RFC 5415 §4.4.2): an 802.3 frame, or an 802.11 data frame with an LLC/SNAP
/// header (RFC 5416). Keep-alives, fragments, DTLS-encrypted data and 802.11 frames without a
/// body stay the outer flow, as ndpiReader leaves them. The 802.11 Protected flag is not
/// trusted: access points set it on frames they decrypted (capwap_data.pcapng), and the SNAP
/// header decides.
fn capwap_data<'a>(f: &'a [u8], at: usize, ctx: &mut Ctx) -> Option<Decoded<'a>> {
    let h = chunk::<{ capwap::MIN_HDR }>(f, at)?;
    if h8(h, capwap::PREAMBLE) != 0 || h8(h, capwap::FLAGS_BYTE) & (capwap::F | capwap::K) != 0 {
        return None;
    }
    let hlen = usize::from(h8(h, capwap::HLEN_BYTE) >> capwap::HLEN_SHIFT) * capwap::WORD;
    if hlen < capwap::MIN_HDR {
        return None;
    }
    let off = at + hlen;
    let wb = h8(h, capwap::WBID_BYTE);
    if wb & capwap::T == 0 {
        return ctx.tunnel(Tunnel::Capwap, |ctx| ethernet(f, off, ctx));
    }
    if (wb >> capwap::WBID_SHIFT) & capwap::WBID_MASK != capwap::WBID_80211 {
        return None;
    }
    // Some access points (Cisco's; capwap_data.pcapng) send the two frame-control bytes
    // swapped, which tshark undoes with its "swap frame control" option: take the order in
    // which the type reads "data". The SNAP header below still has to match.
    let (a, b) = (u8_at(f, off + wifi::FC0)?, u8_at(f, off + wifi::FC1)?);
    let (fc0, fc1) = if a & wifi::TYPE_MASK == wifi::TYPE_DATA {
        (a, b)
    } else {
        (b, a)
    };
    if fc0 & wifi::TYPE_MASK != wifi::TYPE_DATA || fc0 & wifi::NO_DATA != 0 {
        return None;
    }
    let mut body = off + wifi::HDR;
    if fc1 & wifi::DS_MASK == wifi::DS_MASK {
        body += wifi::ADDR4;
    }
    if fc0 & wifi::QOS != 0 {
        body += wifi::QOS_CTRL;
        if fc1 & wifi::ORDER != 0 {
            body += wifi::HT_CTRL;
        }
    }
    if f.get(body..body + wifi::SNAP.len())? != wifi::SNAP {
        return None;
    }
    let et = u16::from_be_bytes([u8_at(f, body + 6)?, u8_at(f, body + 7)?]);
    ctx.tunnel(Tunnel::Capwap, |ctx| {
        ether_payload(f, body + wifi::SNAP_LEN, et, ctx)
    })
}

/// GTP-U v1 G-PDU: the inner IP packet after the header and its extension headers.
fn gtpu<'a>(f: &'a [u8], at: usize, ctx: &mut Ctx) -> Option<Decoded<'a>> {
    let h = chunk::<{ gtp::HDR }>(f, at)?;
    let flags = h8(h, gtp::FLAGS);
    if flags >> gtp::VERSION_SHIFT != gtp::VERSION_1
        || flags & gtp::PT == 0
        || h8(h, gtp::MSG_TYPE) != gtp::G_PDU
    {
        return None;
    }
    let mut off = at + gtp::HDR;
    if flags & gtp::E_S_PN != 0 {
        let o = chunk::<{ gtp::OPT_HDR }>(f, at)?;
        off = at + gtp::OPT_HDR;
        if flags & gtp::E != 0 {
            // Each extension: length (in 4-byte units), content, next type in its last byte.
            let mut next = h8(o, gtp::NEXT_EXT);
            let mut n = 0;
            while next != 0 {
                n += 1;
                if n > MAX_GTP_EXT {
                    return None;
                }
                let len = usize::from(u8_at(f, off)?) * gtp::EXT_UNIT;
                next = u8_at(f, (off + len).checked_sub(1)?)?;
                off += len;
            }
        }
    }
    ctx.tunnel(Tunnel::GtpU, |ctx| match u8_at(f, off).map(|b| b >> 4) {
        Some(4 | 6) => ip_any(f, off, ctx),
        _ => Err(DropReason::NotIp),
    })
}

/// GRE: the inner packet, `None` for the outer packet as the flow, or an error when the GRE
/// header itself is cut short.
pub(crate) fn gre<'a>(
    f: &'a [u8],
    at: usize,
    ctx: &mut Ctx,
) -> Result<Option<Decoded<'a>>, DropReason> {
    if !ctx.may_tunnel() {
        return Ok(None);
    }
    let h = chunk::<{ gre::HDR }>(f, at).ok_or(DropReason::MalformedTunnel)?;
    let flags = h16(h, gre::FLAGS);
    let proto = h16(h, gre::PROTO);
    let version = flags & gre::VERSION;
    if flags & gre::ROUTING != 0 || version > 1 {
        // RFC 1701 source routing, or a version we do not know: not followed.
        return Ok(None);
    }
    let opt = |bit: u16| if flags & bit != 0 { gre::OPT } else { 0 };
    // Version 1 (PPTP) always has the key (payload length and call id).
    let key = if version == 1 {
        gre::OPT
    } else {
        opt(gre::KEY)
    };
    let ack = if version == 1 { opt(gre::ACK) } else { 0 };
    let off = at + gre::HDR + opt(gre::CHECKSUM) + key + opt(gre::SEQ) + ack;
    if off > f.len() {
        return Err(DropReason::MalformedTunnel);
    }
    let seq = flags & gre::SEQ != 0;
    Ok(ctx.tunnel(Tunnel::Gre, |ctx| match proto {
        gre::PPP if version == 1 => ppp_frame(f, off, ctx),
        _ if version == 1 => Err(DropReason::NotIp),
        gre::TEB => ethernet(f, off, ctx),
        // ERSPAN type II has a sequence number and an 8-byte header; type I has neither.
        gre::ERSPAN_2 if seq => ethernet(f, off + erspan::TYPE_2_HDR, ctx),
        gre::ERSPAN_2 => ethernet(f, off, ctx),
        gre::ERSPAN_3 => {
            let o = u8_at(f, off + erspan::TYPE_3_O_BYTE).ok_or(DropReason::TruncatedLink)?;
            let sub = if o & erspan::TYPE_3_O != 0 {
                erspan::TYPE_3_SUBHDR
            } else {
                0
            };
            ethernet(f, off + erspan::TYPE_3_HDR + sub, ctx)
        }
        // IPv4, IPv6, VLAN tags, MPLS; anything else is NotIp and the outer flow stands.
        et => ether_payload(f, off, et, ctx),
    }))
}
