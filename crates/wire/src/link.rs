//! Link layers: Ethernet (with 802.1Q/802.1ad tags, VN-Tag, 802.1ah I-TAG, Cisco FabricPath,
//! MPLS, PPPoE and 802.3 LLC/SNAP), BSD loopback, PPP, PPPoE without Ethernet, Cisco HDLC, Linux
//! cooked captures v1/v2, PPI and raw IP; the 802.11 link types are in [`crate::wifi`].

use crate::decode::Ctx;
use crate::ip::{ip_any, ipv4, ipv6};
use crate::read::{be16, be32, chunk, h16, h32, h8, u8_at};
use crate::wifi;
use crate::{Decoded, DropReason, LinkType};

/// Most 802.1Q/802.1ad tags and VN-Tags accepted on one Ethernet header.
pub const MAX_VLAN_TAGS: usize = 8;
/// Most MPLS labels accepted in one stack.
pub const MAX_MPLS_LABELS: usize = 16;
/// Most Ethernet frames entered inside Ethernet frames without a tunnel: MPLS Ethernet
/// pseudowires, 802.1ah customer frames behind an I-TAG, and classical Ethernet frames behind a
/// FabricPath header (each could hold another). Deeper frames are dropped as
/// [`DropReason::TooManyLabels`].
pub const MAX_PSEUDOWIRES: u8 = 4;

/// Ethertypes (also GRE protocol types and Linux cooked-capture protocols).
pub(crate) mod ethertype {
    pub const IPV4: u16 = 0x0800;
    pub const IPV6: u16 = 0x86dd;
    pub const VLAN: u16 = 0x8100;
    pub const QINQ: u16 = 0x88a8;
    pub const QINQ_OLD: u16 = 0x9100;
    pub const MPLS_UC: u16 = 0x8847;
    pub const MPLS_MC: u16 = 0x8848;
    pub const PPPOE_SESSION: u16 = 0x8864;
    /// IEEE 802.1ah backbone service instance tag (I-TAG).
    pub const PBB_ITAG: u16 = 0x88e7;
    /// Cisco VN-Tag (802.1Qbh interface virtualizer).
    pub const VNTAG: u16 = 0x8926;
    /// Cisco FabricPath (the "DCE" ethertype).
    pub const FABRICPATH: u16 = 0x8903;
    /// Smallest value that is a type rather than an 802.3 length.
    pub const MIN_TYPE: u16 = 0x0600;
}

/// PPP protocol numbers.
mod ppp {
    pub const IPV4: u16 = 0x0021;
    pub const IPV6: u16 = 0x0057;
    pub const MPLS_UC: u16 = 0x0281;
    pub const MPLS_MC: u16 = 0x0283;
    /// HDLC-like framing: all-stations address, unnumbered-information control.
    pub const HDLC_ADDR_CTRL: [u8; 2] = [0xff, 0x03];
}

/// Ethernet II header.
mod eth {
    use core::ops::Range;
    pub const TYPE: Range<usize> = 12..14;
    pub const HDR: usize = 14;
}

/// 802.2 LLC, and the SNAP extension that carries an ethertype.
mod llc {
    use core::ops::Range;
    pub const DSAP: usize = 0;
    pub const SSAP: usize = 1;
    pub const CTRL: usize = 2;
    pub const HDR: usize = 3;
    pub const SNAP_TYPE: Range<usize> = 6..8;
    pub const SNAP_HDR: usize = 8;
    pub const SAP_SNAP: u8 = 0xaa;
    pub const CTRL_UI: u8 = 0x03;
}

/// 802.1Q / 802.1ad tag (after the ethertype that announces it).
mod vlan {
    use core::ops::Range;
    pub const TCI: Range<usize> = 0..2;
    pub const TYPE: Range<usize> = 2..4;
    pub const HDR: usize = 4;
    pub const VID_MASK: u16 = 0x0fff;
}

/// Cisco VN-Tag (after the ethertype that announces it): direction, pointer, destination and
/// source virtual interfaces, looped and version bits, then the next ethertype.
mod vntag {
    use core::ops::Range;
    pub const TYPE: Range<usize> = 4..6;
    pub const HDR: usize = 6;
}

/// IEEE 802.1ah I-TAG (after the ethertype 0x88e7): priority, drop eligibility, use-customer-
/// address and reserved bits, and the 24-bit I-SID, then the customer frame from its destination
/// address on.
mod itag {
    pub const TCI: usize = 4;
}

/// Cisco FabricPath: outer destination and source (hierarchical MACs), the FabricPath ethertype,
/// then FTag (10 bits) and TTL (6 bits); the classical Ethernet frame follows. A VLAN tag may come
/// before the FabricPath ethertype (the 20-byte form), which the tag loop reads on its way.
mod fabricpath {
    pub const FTAG_TTL: usize = 2;
}

/// MPLS label stack entry.
mod mpls {
    pub const HDR: usize = 4;
    pub const BOTTOM_OF_STACK: u32 = 0x100;
    /// Pseudowire control word (RFC 4385): first nibble 0.
    pub const CONTROL_WORD: usize = 4;
}

/// PPPoE header (RFC 2516 §4): version and type, code, session id, length; the PPP frame follows.
mod pppoe {
    pub const CODE: usize = 1;
    /// The code of session data; discovery packets (PADI, PADO, PADR, PADS, PADT) have others.
    pub const CODE_SESSION: u8 = 0x00;
    pub const HDR: usize = 6;
}

/// BSD loopback (DLT_NULL / DLT_LOOP).
mod null {
    pub const HDR: usize = 4;
    pub const AF_INET: u32 = 2;
    /// AF_INET6 on Linux (10), NetBSD/OpenBSD (24), FreeBSD (28), Darwin (30).
    pub const AF_INET6: [u32; 4] = [10, 24, 28, 30];
}

/// Cisco HDLC: address, control, ethertype.
mod chdlc {
    use core::ops::Range;
    pub const ADDR: usize = 0;
    pub const CTRL: usize = 1;
    pub const TYPE: Range<usize> = 2..4;
    pub const HDR: usize = 4;
    pub const ADDR_UNICAST: u8 = 0x0f;
    pub const ADDR_BROADCAST: u8 = 0x8f;
}

/// Linux cooked capture v1.
mod sll {
    use core::ops::Range;
    pub const HATYPE: Range<usize> = 2..4;
    pub const PROTO: Range<usize> = 14..16;
    pub const HDR: usize = 16;
}

/// Linux cooked capture v2.
mod sll2 {
    use core::ops::Range;
    pub const PROTO: Range<usize> = 0..2;
    pub const HATYPE: Range<usize> = 8..10;
    pub const HDR: usize = 20;
}

/// ARPHRD_NETLINK: the cooked protocol field is a netlink family, not an ethertype.
const ARPHRD_NETLINK: u16 = 824;

/// Per-Packet Information header (little-endian fields).
mod ppi {
    use core::ops::Range;
    pub const LEN: Range<usize> = 2..4;
    pub const DLT: Range<usize> = 4..8;
    pub const HDR: usize = 8;
}

/// Decode from the link layer `link` at `off`. `allow_ppi` is false inside a PPI header, so PPI
/// nests at most once.
pub(crate) fn link_layer<'a>(
    link: LinkType,
    f: &'a [u8],
    off: usize,
    ctx: &mut Ctx,
    allow_ppi: bool,
) -> Result<Decoded<'a>, DropReason> {
    match link {
        LinkType::ETHERNET => ethernet(f, off, ctx),
        LinkType::RAW | LinkType::RAW_BSD | LinkType::RAW_OPENBSD => ip_any(f, off, ctx),
        LinkType::IPV4 => ipv4(f, off, ctx),
        LinkType::IPV6 => ipv6(f, off, ctx),
        LinkType::NULL | LinkType::LOOP => loopback(f, off, ctx),
        LinkType::PPP => ppp_frame(f, off, ctx),
        LinkType::PPP_ETHER => {
            let h = chunk::<{ pppoe::HDR }>(f, off).ok_or(DropReason::TruncatedLink)?;
            if h8(h, pppoe::CODE) != pppoe::CODE_SESSION {
                // Discovery: no PPP frame.
                return Err(DropReason::NotIp);
            }
            ppp_payload(f, off + pppoe::HDR, ctx)
        }
        LinkType::C_HDLC => cisco_hdlc(f, off, ctx),
        LinkType::IEEE802_11 => wifi::frame(f, off, ctx, false),
        LinkType::IEEE802_11_RADIOTAP => wifi::radiotap(f, off, ctx),
        LinkType::PRISM_HEADER => wifi::prism(f, off, ctx),
        LinkType::IEEE802_11_AVS => wifi::avs(f, off, ctx),
        LinkType::LINUX_SLL => {
            let h = chunk::<{ sll::HDR }>(f, off).ok_or(DropReason::TruncatedLink)?;
            cooked(
                f,
                off + sll::HDR,
                h16(h, sll::HATYPE),
                h16(h, sll::PROTO),
                ctx,
            )
        }
        LinkType::LINUX_SLL2 => {
            let h = chunk::<{ sll2::HDR }>(f, off).ok_or(DropReason::TruncatedLink)?;
            cooked(
                f,
                off + sll2::HDR,
                h16(h, sll2::HATYPE),
                h16(h, sll2::PROTO),
                ctx,
            )
        }
        LinkType::PPI if allow_ppi => {
            let h = chunk::<{ ppi::HDR }>(f, off).ok_or(DropReason::TruncatedLink)?;
            // PPI fields are little-endian.
            let len = usize::from(h16(h, ppi::LEN).swap_bytes());
            let dlt = h32(h, ppi::DLT).swap_bytes();
            if len < ppi::HDR {
                return Err(DropReason::TruncatedLink);
            }
            link_layer(LinkType(dlt), f, off + len, ctx, false)
        }
        _ => Err(DropReason::UnsupportedLinkType),
    }
}

/// BSD loopback: a 4-byte address family, in the capturing host's byte order for DLT_NULL and
/// network order for DLT_LOOP; both orders are accepted for both, since families are small.
fn loopback<'a>(f: &'a [u8], off: usize, ctx: &mut Ctx) -> Result<Decoded<'a>, DropReason> {
    let fam = be32(f, off).ok_or(DropReason::TruncatedLink)?;
    let fam = if fam > 0xffff { fam.swap_bytes() } else { fam };
    if fam == null::AF_INET {
        ipv4(f, off + null::HDR, ctx)
    } else if null::AF_INET6.contains(&fam) {
        ipv6(f, off + null::HDR, ctx)
    } else {
        Err(DropReason::NotIp)
    }
}

/// Cisco HDLC: the protocol is an ethertype (SLARP 0x8035 and CDP 0x2000 are not IP).
fn cisco_hdlc<'a>(f: &'a [u8], off: usize, ctx: &mut Ctx) -> Result<Decoded<'a>, DropReason> {
    let h = chunk::<{ chdlc::HDR }>(f, off).ok_or(DropReason::TruncatedLink)?;
    ether_payload(f, off + chdlc::HDR, h16(h, chdlc::TYPE), ctx)
}

/// Linux cooked capture: the protocol is an ethertype unless the device is netlink.
fn cooked<'a>(
    f: &'a [u8],
    at: usize,
    hatype: u16,
    proto: u16,
    ctx: &mut Ctx,
) -> Result<Decoded<'a>, DropReason> {
    if hatype == ARPHRD_NETLINK {
        return Err(DropReason::NotIp);
    }
    // 802.2 (0x0004), Novell 802.3 (0x0001) and other small values are not ethertypes: NotIp.
    ether_payload(f, at, proto, ctx)
}

/// An Ethernet header at `off`: Ethernet II, or 802.3 with LLC (IP only through SNAP).
pub(crate) fn ethernet<'a>(
    f: &'a [u8],
    off: usize,
    ctx: &mut Ctx,
) -> Result<Decoded<'a>, DropReason> {
    let h = chunk::<{ eth::HDR }>(f, off).ok_or(DropReason::TruncatedLink)?;
    let et = h16(h, eth::TYPE);
    let at = off + eth::HDR;
    if et >= ethertype::MIN_TYPE {
        return ether_payload(f, at, et, ctx);
    }
    // 802.3: a length, then LLC. Only SNAP (aa aa 03, OUI, ethertype) can carry IP; other
    // LLC frames (STP, NetBIOS, IPX) carry no IP flow.
    let l = chunk::<{ llc::HDR }>(f, at).ok_or(DropReason::TruncatedLink)?;
    if h8(l, llc::DSAP) != llc::SAP_SNAP
        || h8(l, llc::SSAP) != llc::SAP_SNAP
        || h8(l, llc::CTRL) != llc::CTRL_UI
    {
        return Err(DropReason::NotIp);
    }
    let snap = chunk::<{ llc::SNAP_HDR }>(f, at).ok_or(DropReason::TruncatedLink)?;
    ether_payload(f, at + llc::SNAP_HDR, h16(snap, llc::SNAP_TYPE), ctx)
}

/// What follows an ethertype `et` at `off`: VLAN tags and VN-Tags, MPLS, PPPoE, an 802.1ah or
/// FabricPath inner Ethernet frame, IPv4 or IPv6.
pub(crate) fn ether_payload<'a>(
    f: &'a [u8],
    mut off: usize,
    mut et: u16,
    ctx: &mut Ctx,
) -> Result<Decoded<'a>, DropReason> {
    let mut tags = 0;
    loop {
        match et {
            ethertype::IPV4 => return ipv4(f, off, ctx),
            ethertype::IPV6 => return ipv6(f, off, ctx),
            ethertype::VLAN | ethertype::QINQ | ethertype::QINQ_OLD => {
                tags += 1;
                if tags > MAX_VLAN_TAGS {
                    return Err(DropReason::TooManyLabels);
                }
                let t = chunk::<{ vlan::HDR }>(f, off).ok_or(DropReason::TruncatedLink)?;
                // The innermost tag names the VLAN, as nDPI does.
                ctx.vlan = h16(t, vlan::TCI) & vlan::VID_MASK;
                et = h16(t, vlan::TYPE);
                off += vlan::HDR;
            }
            ethertype::VNTAG => {
                // A tag like a VLAN tag, counted with them; it names no VLAN.
                tags += 1;
                if tags > MAX_VLAN_TAGS {
                    return Err(DropReason::TooManyLabels);
                }
                let t = chunk::<{ vntag::HDR }>(f, off).ok_or(DropReason::TruncatedLink)?;
                et = h16(t, vntag::TYPE);
                off += vntag::HDR;
            }
            ethertype::MPLS_UC | ethertype::MPLS_MC => return mpls_stack(f, off, ctx),
            ethertype::PPPOE_SESSION => {
                chunk::<{ pppoe::HDR }>(f, off).ok_or(DropReason::TruncatedLink)?;
                return ppp_payload(f, off + pppoe::HDR, ctx);
            }
            ethertype::PBB_ITAG => {
                // The backbone VLAN (the B-tag before) stays unless the customer frame has tags.
                ctx.enter_inner_frame()?;
                return ethernet(f, off + itag::TCI, ctx);
            }
            ethertype::FABRICPATH => {
                ctx.enter_inner_frame()?;
                return ethernet(f, off + fabricpath::FTAG_TTL, ctx);
            }
            // ARP, LLDP, PPPoE discovery, 802.1X, ...: valid frames with no IP flow.
            _ => return Err(DropReason::NotIp),
        }
    }
}

/// An MPLS label stack at `off`; after the bottom label the first nibble tells IPv4, IPv6, or a
/// pseudowire control word followed by an Ethernet frame.
pub(crate) fn mpls_stack<'a>(
    f: &'a [u8],
    mut off: usize,
    ctx: &mut Ctx,
) -> Result<Decoded<'a>, DropReason> {
    for _ in 0..MAX_MPLS_LABELS {
        let e = be32(f, off).ok_or(DropReason::TruncatedLink)?;
        off += mpls::HDR;
        if e & mpls::BOTTOM_OF_STACK != 0 {
            return match u8_at(f, off).ok_or(DropReason::TruncatedLink)? >> 4 {
                4 => ipv4(f, off, ctx),
                6 => ipv6(f, off, ctx),
                0 => {
                    ctx.enter_inner_frame()?;
                    ethernet(f, off + mpls::CONTROL_WORD, ctx)
                }
                _ => Err(DropReason::NotIp),
            };
        }
    }
    Err(DropReason::TooManyLabels)
}

/// A PPP frame at `off`, as [`ppp_payload`] reads it. Captures labelled PPP that hold Cisco HDLC
/// (address 0x0f/0x8f, as libpcap's PPP_SERIAL and nDPI read them) are decoded as Cisco HDLC.
pub(crate) fn ppp_frame<'a>(
    f: &'a [u8],
    off: usize,
    ctx: &mut Ctx,
) -> Result<Decoded<'a>, DropReason> {
    if let Some(h) = chunk::<{ chdlc::HDR }>(f, off) {
        let a = h8(h, chdlc::ADDR);
        if (a == chdlc::ADDR_UNICAST || a == chdlc::ADDR_BROADCAST) && h8(h, chdlc::CTRL) == 0 {
            return cisco_hdlc(f, off, ctx);
        }
    }
    ppp_payload(f, off, ctx)
}

/// A PPP frame at `off` (on a serial link, in PPTP's GRE, or in a PPPoE session): optional
/// HDLC-like framing (ff 03, which address-and-control-field compression leaves out), then a 2-byte
/// protocol, or a 1-byte one under protocol-field compression (RFC 1661 §6.5, §2: a protocol
/// whose first byte is odd).
fn ppp_payload<'a>(f: &'a [u8], mut off: usize, ctx: &mut Ctx) -> Result<Decoded<'a>, DropReason> {
    if chunk::<2>(f, off) == Some(&ppp::HDLC_ADDR_CTRL) {
        off += ppp::HDLC_ADDR_CTRL.len();
    }
    let first = u8_at(f, off).ok_or(DropReason::TruncatedLink)?;
    if first & 1 == 1 {
        // Protocol-field compression: an odd first byte is the whole protocol.
        return ppp_proto(f, off + 1, u16::from(first), ctx);
    }
    let proto = be16(f, off).ok_or(DropReason::TruncatedLink)?;
    ppp_proto(f, off + 2, proto, ctx)
}

/// The PPP protocol `proto` with its packet at `off`.
fn ppp_proto<'a>(
    f: &'a [u8],
    off: usize,
    proto: u16,
    ctx: &mut Ctx,
) -> Result<Decoded<'a>, DropReason> {
    match proto {
        ppp::IPV4 => ipv4(f, off, ctx),
        ppp::IPV6 => ipv6(f, off, ctx),
        ppp::MPLS_UC | ppp::MPLS_MC => mpls_stack(f, off, ctx),
        // LCP, IPCP, CHAP, ...
        _ => Err(DropReason::NotIp),
    }
}
