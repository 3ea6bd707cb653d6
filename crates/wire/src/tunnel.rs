//! Tunnels: GRE (versions 0 and 1) and IP in IP over IP; VXLAN, Geneve, GTP-U, CAPWAP data,
//! Teredo, AYIYA and GRE-in-UDP over UDP. Each returns `Ok(Some(inner flow))`, or `Ok(None)` when
//! the outer packet should stand as the flow: tunnels off, nesting cap reached, not this tunnel
//! after all (a header that does not check out, a message that carries no packet), or an inner
//! packet that does not decode.
//!
//! Two errors: a GRE header carried by IP and cut short ([`DropReason::MalformedTunnel`]: with
//! protocol 47 the bytes can only be GRE), and [`DropReason::NotIp`] when a tunnel that carries
//! link-layer frames (VXLAN, Geneve and GRE with Ethernet, ERSPAN, CAPWAP) holds a frame typed as
//! not IP, such as ARP: that frame carries no IP flow, and keying it on the outer datagram would
//! count a flow that is not there (see `Ctx::tunnel`). Over UDP, where the port is only a hint,
//! every other failure leaves the outer datagram as the flow, and a tunnel defined to carry IP
//! (GTP-U, Teredo, AYIYA, Geneve or GRE-in-UDP with an IP protocol type) whose payload is not IP
//! was not that tunnel.

use crate::decode::Ctx;
use crate::ip::{ip_any, ipv4, ipv6};
use crate::link::{ether_payload, ethernet, ppp_frame};
use crate::read::{chunk, h16, h8, u8_at};
use crate::wifi;
use crate::{ip_proto, Decoded, DropReason, Tunnel};

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
/// UDP destination port of Geneve (RFC 8926 §3.3).
pub const GENEVE_PORT: u16 = 6081;
/// UDP port of Teredo (RFC 4380 §4; either side: the server's port).
pub const TEREDO_PORT: u16 = 3544;
/// UDP port of AYIYA (either side).
pub const AYIYA_PORT: u16 = 5072;
/// UDP destination port of GRE-in-UDP (RFC 8086 §3.2).
pub const GRE_IN_UDP_PORT: u16 = 4754;

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

/// Geneve header (RFC 8926 §3.4): version (2 bits) and options length (6 bits, in 4-byte
/// words), the O and C flags, the protocol type, VNI; the options follow the fixed 8 bytes.
mod geneve {
    use core::ops::Range;
    pub const VER_OPT_LEN: usize = 0;
    pub const VERSION_SHIFT: u8 = 6;
    pub const OPT_LEN_MASK: u8 = 0x3f;
    pub const PROTO: Range<usize> = 2..4;
    pub const HDR: usize = 8;
    pub const OPT_UNIT: usize = 4;
    /// Protocol type of an Ethernet frame (transparent Ethernet bridging).
    pub const ETHERNET: u16 = 0x6558;
}

/// Teredo's optional headers before the IPv6 packet (RFC 4380 §5.1.1), in this order.
mod teredo {
    use core::ops::Range;
    /// Authentication: 00 01, client id length, authentication value length, the id, the value,
    /// an 8-byte nonce and a confirmation byte.
    pub const AUTH: [u8; 2] = [0x00, 0x01];
    pub const AUTH_ID_LEN: usize = 2;
    pub const AUTH_AU_LEN: usize = 3;
    pub const AUTH_FIXED: usize = 4;
    pub const AUTH_NONCE_CONFIRM: usize = 9;
    /// Origin indication: 00 00, obfuscated origin port and IPv4 address.
    pub const ORIGIN: [u8; 2] = [0x00, 0x00];
    pub const ORIGIN_LEN: usize = 8;
    /// The IPv6 header's first bytes: version, and the payload length that must fill the
    /// datagram.
    pub const V6_PREFIX: usize = 6;
    pub const V6_VERSION: usize = 0;
    pub const V6_PAYLOAD_LEN: Range<usize> = 4..6;
    pub const V6_HDR: usize = 40;
}

/// AYIYA header (draft-massar-v6ops-ayiya-02 §5): identity length (2^n bytes) and type, signature
/// length (n * 4 bytes) and hash method, authentication method and opcode, next header, epoch;
/// then the identity and the signature.
mod ayiya {
    pub const ID_LEN: usize = 0;
    pub const SIG_LEN: usize = 1;
    pub const OPCODE: usize = 2;
    pub const NEXT: usize = 3;
    pub const LEN_SHIFT: u8 = 4;
    pub const OPCODE_MASK: u8 = 0x0f;
    /// The one opcode that carries a packet.
    pub const FORWARD: u8 = 1;
    pub const SIG_UNIT: usize = 4;
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
    /// The one message type that carries a user packet (echo, error indication, end marker and
    /// the rest do not).
    pub const G_PDU: u8 = 0xff;
    /// Extension headers count their length in 4-byte units.
    pub const EXT_UNIT: usize = 4;
}

/// The UDP ports of the tunnels [`over_udp`] opens.
const TUNNEL_PORTS: [u16; 7] = [
    VXLAN_PORT,
    GENEVE_PORT,
    GRE_IN_UDP_PORT,
    GTPU_PORT,
    CAPWAP_DATA_PORT,
    TEREDO_PORT,
    AYIYA_PORT,
];

/// The smallest span of ports holding every tunnel port (computed from the list, so a port added
/// to it widens the span).
const TUNNEL_PORT_SPAN: core::ops::RangeInclusive<u16> = {
    let (mut lo, mut hi, mut i) = (u16::MAX, 0, 0);
    while i < TUNNEL_PORTS.len() {
        if TUNNEL_PORTS[i] < lo {
            lo = TUNNEL_PORTS[i];
        }
        if TUNNEL_PORTS[i] > hi {
            hi = TUNNEL_PORTS[i];
        }
        i += 1;
    }
    lo..=hi
};

/// Does a UDP datagram between these ports carry a tunnel the decoder opens ([`over_udp`])?
/// The decoder and the fast path ([`crate::fast`]) share this one answer.
#[inline]
pub(crate) fn carries_tunnel(sport: u16, dport: u16) -> bool {
    // Most datagrams have neither port in the tunnels' span: two compares, not eleven (the
    // worst case's UDP flows paid 2% more instructions a packet for the list).
    if !TUNNEL_PORT_SPAN.contains(&sport) && !TUNNEL_PORT_SPAN.contains(&dport) {
        return false;
    }
    let either = |p: u16| sport == p || dport == p;
    dport == VXLAN_PORT
        || dport == GENEVE_PORT
        || dport == GRE_IN_UDP_PORT
        || either(GTPU_PORT)
        || either(CAPWAP_DATA_PORT)
        || either(TEREDO_PORT)
        || either(AYIYA_PORT)
}

/// The tunnel inside a UDP datagram whose payload starts at `at` and which ends, by its UDP
/// length, at `end`. The first port that matches decides.
#[inline]
pub(crate) fn over_udp<'a>(
    f: &'a [u8],
    at: usize,
    end: usize,
    sport: u16,
    dport: u16,
    ctx: &mut Ctx,
) -> Result<Option<Decoded<'a>>, DropReason> {
    let either = |p: u16| sport == p || dport == p;
    if dport == VXLAN_PORT {
        vxlan(f, at, ctx)
    } else if dport == GENEVE_PORT {
        geneve(f, at, ctx)
    } else if dport == GRE_IN_UDP_PORT {
        gre_in_udp(f, at, ctx)
    } else if either(GTPU_PORT) {
        gtpu(f, at, ctx)
    } else if either(CAPWAP_DATA_PORT) {
        capwap_data(f, at, ctx)
    } else if either(TEREDO_PORT) {
        teredo(f, at, end, ctx)
    } else if either(AYIYA_PORT) {
        ayiya(f, at, ctx)
    } else {
        Ok(None)
    }
}

/// IP in IP (protocols 4 and 41): the inner packet at `at`.
#[inline]
pub(crate) fn ip_in_ip<'a>(
    f: &'a [u8],
    at: usize,
    v6: bool,
    ctx: &mut Ctx,
) -> Result<Option<Decoded<'a>>, DropReason> {
    ctx.tunnel(Tunnel::IpInIp, false, |ctx| {
        if v6 {
            ipv6(f, at, ctx)
        } else {
            ipv4(f, at, ctx)
        }
    })
}

/// VXLAN (RFC 7348): the I flag, then an Ethernet frame.
fn vxlan<'a>(f: &'a [u8], at: usize, ctx: &mut Ctx) -> Result<Option<Decoded<'a>>, DropReason> {
    let Some(h) = chunk::<{ vxlan::HDR }>(f, at) else {
        return Ok(None);
    };
    if h8(h, vxlan::FLAGS) & vxlan::I == 0 {
        return Ok(None);
    }
    ctx.tunnel(Tunnel::Vxlan, true, |ctx| ethernet(f, at + vxlan::HDR, ctx))
}

/// Geneve (RFC 8926): version 0, options skipped by their length, then an Ethernet frame or what
/// the protocol type (an ethertype) names. Control (O flag) packets are read the same way: their
/// payload is whatever the protocol type says.
fn geneve<'a>(f: &'a [u8], at: usize, ctx: &mut Ctx) -> Result<Option<Decoded<'a>>, DropReason> {
    let Some(h) = chunk::<{ geneve::HDR }>(f, at) else {
        return Ok(None);
    };
    let vo = h8(h, geneve::VER_OPT_LEN);
    if vo >> geneve::VERSION_SHIFT != 0 {
        return Ok(None);
    }
    let off = at + geneve::HDR + usize::from(vo & geneve::OPT_LEN_MASK) * geneve::OPT_UNIT;
    match h16(h, geneve::PROTO) {
        geneve::ETHERNET => ctx.tunnel(Tunnel::Geneve, true, |ctx| ethernet(f, off, ctx)),
        et => ctx.tunnel(Tunnel::Geneve, false, |ctx| ether_payload(f, off, et, ctx)),
    }
}

/// Teredo (RFC 4380): optional authentication and origin indication headers, then an IPv6
/// packet. Port 3544 also carries other things, so the packet must be IPv6 (version 6) whose
/// payload length fills the datagram `end` exactly; a bubble (no payload, next header 59) is an
/// IPv6 flow like any other.
fn teredo<'a>(
    f: &'a [u8],
    at: usize,
    end: usize,
    ctx: &mut Ctx,
) -> Result<Option<Decoded<'a>>, DropReason> {
    let mut off = at;
    if chunk::<2>(f, off) == Some(&teredo::AUTH) {
        let Some(a) = chunk::<{ teredo::AUTH_FIXED }>(f, off) else {
            return Ok(None);
        };
        off += teredo::AUTH_FIXED
            + usize::from(h8(a, teredo::AUTH_ID_LEN))
            + usize::from(h8(a, teredo::AUTH_AU_LEN))
            + teredo::AUTH_NONCE_CONFIRM;
    }
    if chunk::<2>(f, off) == Some(&teredo::ORIGIN) {
        off += teredo::ORIGIN_LEN;
    }
    let Some(v6) = chunk::<{ teredo::V6_PREFIX }>(f, off) else {
        return Ok(None);
    };
    let len = teredo::V6_HDR + usize::from(h16(v6, teredo::V6_PAYLOAD_LEN));
    if h8(v6, teredo::V6_VERSION) >> 4 != 6 || off + len != end {
        return Ok(None);
    }
    ctx.tunnel(Tunnel::Teredo, false, |ctx| ipv6(f, off, ctx))
}

/// AYIYA: a Forward message whose next header is IPv4 or IPv6, after the identity and the
/// signature; heartbeats, echoes, MOTD and queries carry no packet.
fn ayiya<'a>(f: &'a [u8], at: usize, ctx: &mut Ctx) -> Result<Option<Decoded<'a>>, DropReason> {
    let Some(h) = chunk::<{ ayiya::HDR }>(f, at) else {
        return Ok(None);
    };
    if h8(h, ayiya::OPCODE) & ayiya::OPCODE_MASK != ayiya::FORWARD {
        return Ok(None);
    }
    let id = 1usize << (h8(h, ayiya::ID_LEN) >> ayiya::LEN_SHIFT);
    let sig = usize::from(h8(h, ayiya::SIG_LEN) >> ayiya::LEN_SHIFT) * ayiya::SIG_UNIT;
    let off = at + ayiya::HDR + id + sig;
    match h8(h, ayiya::NEXT) {
        ip_proto::IPIP => ctx.tunnel(Tunnel::Ayiya, false, |ctx| ipv4(f, off, ctx)),
        ip_proto::IPV6 => ctx.tunnel(Tunnel::Ayiya, false, |ctx| ipv6(f, off, ctx)),
        // No next header (59), or anything else.
        _ => Ok(None),
    }
}

/// CAPWAP data (RFC 5415 §4.4.2): an 802.3 frame, or an 802.11 data frame with an LLC/SNAP
/// header (RFC 5416). Keep-alives, fragments, DTLS-encrypted data and 802.11 frames that are not
/// data frames with LLC/SNAP stay the outer flow, as ndpiReader leaves them. The 802.11
/// Protected flag is not trusted: access points set it on frames they decrypted
/// (capwap_data.pcapng), and the SNAP header decides.
fn capwap_data<'a>(
    f: &'a [u8],
    at: usize,
    ctx: &mut Ctx,
) -> Result<Option<Decoded<'a>>, DropReason> {
    let Some(h) = chunk::<{ capwap::MIN_HDR }>(f, at) else {
        return Ok(None);
    };
    if h8(h, capwap::PREAMBLE) != 0 || h8(h, capwap::FLAGS_BYTE) & (capwap::F | capwap::K) != 0 {
        return Ok(None);
    }
    let hlen = usize::from(h8(h, capwap::HLEN_BYTE) >> capwap::HLEN_SHIFT) * capwap::WORD;
    if hlen < capwap::MIN_HDR {
        return Ok(None);
    }
    let off = at + hlen;
    let wb = h8(h, capwap::WBID_BYTE);
    if wb & capwap::T == 0 {
        return ctx.tunnel(Tunnel::Capwap, true, |ctx| ethernet(f, off, ctx));
    }
    if (wb >> capwap::WBID_SHIFT) & capwap::WBID_MASK != capwap::WBID_80211 {
        return Ok(None);
    }
    // Some access points (Cisco's; capwap_data.pcapng) send the two frame-control bytes
    // swapped, which tshark undoes with its "swap frame control" option: take the order in
    // which the type reads "data". The SNAP header still has to match.
    let Some(&[a, b]) = chunk::<2>(f, off) else {
        return Ok(None);
    };
    let fc = if wifi::is_data(a) { [a, b] } else { [b, a] };
    let Ok((et, body)) = wifi::data_body(f, off, fc, false) else {
        return Ok(None);
    };
    ctx.tunnel(Tunnel::Capwap, true, |ctx| ether_payload(f, body, et, ctx))
}

/// GTP-U v1 G-PDU: the inner IP packet after the header and its extension headers. Other
/// message types (echo, error indication, end marker, …), GTP' (PT clear) and other versions
/// stay the outer flow.
fn gtpu<'a>(f: &'a [u8], at: usize, ctx: &mut Ctx) -> Result<Option<Decoded<'a>>, DropReason> {
    let Some(h) = chunk::<{ gtp::HDR }>(f, at) else {
        return Ok(None);
    };
    let flags = h8(h, gtp::FLAGS);
    if flags >> gtp::VERSION_SHIFT != gtp::VERSION_1
        || flags & gtp::PT == 0
        || h8(h, gtp::MSG_TYPE) != gtp::G_PDU
    {
        return Ok(None);
    }
    let mut off = at + gtp::HDR;
    if flags & gtp::E_S_PN != 0 {
        let Some(o) = chunk::<{ gtp::OPT_HDR }>(f, at) else {
            return Ok(None);
        };
        off = at + gtp::OPT_HDR;
        if flags & gtp::E != 0 {
            // Each extension: length (in 4-byte units, never 0), content, next type in its last
            // byte.
            let mut next = h8(o, gtp::NEXT_EXT);
            let mut n = 0;
            while next != 0 {
                n += 1;
                if n > MAX_GTP_EXT {
                    return Ok(None);
                }
                let len = match u8_at(f, off) {
                    Some(0) | None => return Ok(None),
                    Some(units) => usize::from(units) * gtp::EXT_UNIT,
                };
                let Some(nx) = u8_at(f, off + len - 1) else {
                    return Ok(None);
                };
                next = nx;
                off += len;
            }
        }
    }
    ctx.tunnel(Tunnel::GtpU, false, |ctx| {
        match u8_at(f, off).map(|b| b >> 4) {
            Some(4 | 6) => ip_any(f, off, ctx),
            _ => Err(DropReason::NotIp),
        }
    })
}

/// A GRE header that is followed: its protocol type and version, whether it has a sequence
/// number, and where its payload starts.
struct GreHeader {
    proto: u16,
    version: u16,
    seq: bool,
    payload: usize,
}

/// The GRE header at `at`: an error when cut short, `None` for one not followed (RFC 1701 source
/// routing, or a version we do not know).
fn gre_header(f: &[u8], at: usize) -> Result<Option<GreHeader>, DropReason> {
    let h = chunk::<{ gre::HDR }>(f, at).ok_or(DropReason::MalformedTunnel)?;
    let flags = h16(h, gre::FLAGS);
    let version = flags & gre::VERSION;
    if flags & gre::ROUTING != 0 || version > 1 {
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
    let payload = at + gre::HDR + opt(gre::CHECKSUM) + key + opt(gre::SEQ) + ack;
    if payload > f.len() {
        return Err(DropReason::MalformedTunnel);
    }
    Ok(Some(GreHeader {
        proto: h16(h, gre::PROTO),
        version,
        seq: flags & gre::SEQ != 0,
        payload,
    }))
}

/// GRE carried by IP (protocol 47): the inner packet, `None` for the outer packet as the flow,
/// or an error when the GRE header itself is cut short.
pub(crate) fn gre<'a>(
    f: &'a [u8],
    at: usize,
    ctx: &mut Ctx,
) -> Result<Option<Decoded<'a>>, DropReason> {
    if !ctx.may_tunnel() {
        return Ok(None);
    }
    match gre_header(f, at)? {
        Some(h) => gre_payload(f, &h, Tunnel::Gre, ctx),
        None => Ok(None),
    }
}

/// GRE-in-UDP (RFC 8086): a version 0 GRE header (RFC 2784/2890) as the UDP payload. Unlike GRE
/// over IP, a header cut short leaves the datagram as the flow, as for the other UDP tunnels.
fn gre_in_udp<'a>(
    f: &'a [u8],
    at: usize,
    ctx: &mut Ctx,
) -> Result<Option<Decoded<'a>>, DropReason> {
    match gre_header(f, at) {
        Ok(Some(h)) if h.version == 0 => gre_payload(f, &h, Tunnel::GreInUdp, ctx),
        _ => Ok(None),
    }
}

/// What a GRE header `h` carries, removed as a tunnel level of kind `t`.
fn gre_payload<'a>(
    f: &'a [u8],
    h: &GreHeader,
    t: Tunnel,
    ctx: &mut Ctx,
) -> Result<Option<Decoded<'a>>, DropReason> {
    let off = h.payload;
    match h.proto {
        gre::PPP if h.version == 1 => ctx.tunnel(t, false, |ctx| ppp_frame(f, off, ctx)),
        _ if h.version == 1 => Ok(None),
        gre::TEB => ctx.tunnel(t, true, |ctx| ethernet(f, off, ctx)),
        // ERSPAN type II has a sequence number and an 8-byte header; type I has neither.
        gre::ERSPAN_2 if h.seq => {
            ctx.tunnel(t, true, |ctx| ethernet(f, off + erspan::TYPE_2_HDR, ctx))
        }
        gre::ERSPAN_2 => ctx.tunnel(t, true, |ctx| ethernet(f, off, ctx)),
        gre::ERSPAN_3 => ctx.tunnel(t, true, |ctx| {
            let o = u8_at(f, off + erspan::TYPE_3_O_BYTE).ok_or(DropReason::TruncatedLink)?;
            let sub = if o & erspan::TYPE_3_O != 0 {
                erspan::TYPE_3_SUBHDR
            } else {
                0
            };
            ethernet(f, off + erspan::TYPE_3_HDR + sub, ctx)
        }),
        // IPv4, IPv6, VLAN tags, MPLS; anything else is NotIp and the outer flow stands.
        et => ctx.tunnel(t, false, |ctx| ether_payload(f, off, et, ctx)),
    }
}

#[cfg(test)]
mod port_tests {
    use super::*;

    /// The span filter in front of the list changes no answer: every destination port, and every
    /// source port (only the tunnels named by either port count there).
    #[test]
    fn carries_tunnel_is_the_port_list() {
        let either = [GTPU_PORT, CAPWAP_DATA_PORT, TEREDO_PORT, AYIYA_PORT];
        for p in 0..=u16::MAX {
            assert_eq!(carries_tunnel(50_000, p), TUNNEL_PORTS.contains(&p), "{p}");
            assert_eq!(carries_tunnel(p, 50_000), either.contains(&p), "{p}");
        }
    }
}
