//! The decoder proper: link layers, IP, transports and tunnels over absolute frame offsets.
//!
//! Every read is a bounds-checked `get`; every loop has a fixed cap. Offsets are absolute in the
//! frame so `Decoded::l3_offset` needs no bookkeeping across tunnel levels. When an IP packet's
//! total length is shorter than what was captured (Ethernet padding), the frame is cut to the IP
//! end before going deeper, so padding never counts as payload.

use crate::{ip_proto, DecodeConfig, Decoded, DropReason, Fragment, LinkType, TcpInfo, Tunnel};

/// Most 802.1Q/802.1ad tags accepted on one Ethernet header.
pub const MAX_VLAN_TAGS: usize = 8;
/// Most MPLS labels accepted in one stack.
pub const MAX_MPLS_LABELS: usize = 16;
/// Most IPv6 extension headers accepted before the transport.
pub const MAX_IPV6_EXT: usize = 8;
/// Most tunnel levels removed; a deeper packet is returned as the flow at the cap.
pub const MAX_TUNNEL_DEPTH: u8 = 4;
/// Most GTP-U extension headers followed.
pub const MAX_GTP_EXT: usize = 8;

/// Ethertypes.
mod ethertype {
    pub const IPV4: u16 = 0x0800;
    pub const IPV6: u16 = 0x86dd;
    pub const VLAN: u16 = 0x8100;
    pub const QINQ: u16 = 0x88a8;
    pub const QINQ_OLD: u16 = 0x9100;
    pub const MPLS_UC: u16 = 0x8847;
    pub const MPLS_MC: u16 = 0x8848;
    pub const PPPOE_SESSION: u16 = 0x8864;
    pub const TEB: u16 = 0x6558;
    pub const ERSPAN2: u16 = 0x88be;
    pub const PPP: u16 = 0x880b;
}

/// PPP protocol numbers.
mod ppp {
    pub const IPV4: u16 = 0x0021;
    pub const IPV6: u16 = 0x0057;
}

/// Field positions, by header.
mod field {
    use core::ops::Range;
    pub const ETH_TYPE: Range<usize> = 12..14;
    pub const ETH_HDR: usize = 14;
    pub const SLL_PROTO: Range<usize> = 14..16;
    pub const SLL_HDR: usize = 16;
    pub const SLL2_PROTO: Range<usize> = 0..2;
    pub const SLL2_HDR: usize = 20;
    pub const IP4_TOTAL_LEN: Range<usize> = 2..4;
    pub const IP4_ID: Range<usize> = 4..6;
    pub const IP4_FRAG: Range<usize> = 6..8;
    pub const IP4_TTL: usize = 8;
    pub const IP4_PROTO: usize = 9;
    pub const IP4_SRC: Range<usize> = 12..16;
    pub const IP4_DST: Range<usize> = 16..20;
    pub const IP6_PAYLOAD_LEN: Range<usize> = 4..6;
    pub const IP6_NEXT: usize = 6;
    pub const IP6_HOPS: usize = 7;
    pub const IP6_SRC: Range<usize> = 8..24;
    pub const IP6_DST: Range<usize> = 24..40;
    pub const IP6_HDR: usize = 40;
}

#[inline(always)]
fn be16(b: &[u8], at: usize) -> Option<u16> {
    let s = b.get(at..at + 2)?;
    Some(u16::from_be_bytes([s[0], s[1]]))
}

#[inline(always)]
fn be32(b: &[u8], at: usize) -> Option<u32> {
    let s = b.get(at..at + 4)?;
    Some(u32::from_be_bytes([s[0], s[1], s[2], s[3]]))
}

#[inline(always)]
fn byte(b: &[u8], at: usize) -> Option<u8> {
    b.get(at).copied()
}

/// Decoding state carried across layers.
struct St {
    cfg: DecodeConfig,
    vlan: u16,
    tunnel: Tunnel,
    depth: u8,
}

impl St {
    fn enter(&mut self, t: Tunnel) -> bool {
        if !self.cfg.decode_tunnels || self.depth >= MAX_TUNNEL_DEPTH {
            return false;
        }
        self.depth += 1;
        if self.tunnel == Tunnel::None {
            self.tunnel = t;
        }
        true
    }
}

pub(crate) fn decode<'a>(
    link: LinkType,
    frame: &'a [u8],
    cfg: &DecodeConfig,
) -> Result<Decoded<'a>, DropReason> {
    let mut st = St {
        cfg: *cfg,
        vlan: 0,
        tunnel: Tunnel::None,
        depth: 0,
    };
    link_layer(link, frame, 0, &mut st, true)
}

fn link_layer<'a>(
    link: LinkType,
    f: &'a [u8],
    off: usize,
    st: &mut St,
    allow_ppi: bool,
) -> Result<Decoded<'a>, DropReason> {
    match link {
        LinkType::ETHERNET => ethernet(f, off, st),
        LinkType::RAW | LinkType::RAW_BSD | LinkType::RAW_OPENBSD => ip_any(f, off, st),
        LinkType::IPV4 => ipv4(f, off, st),
        LinkType::IPV6 => ipv6(f, off, st),
        LinkType::NULL | LinkType::LOOP => {
            let fam = f.get(off..off + 4).ok_or(DropReason::TruncatedLink)?;
            let fam = [fam[0], fam[1], fam[2], fam[3]];
            // DLT_NULL is in the capturing host's byte order: accept either.
            let v = if link == LinkType::LOOP {
                u32::from_be_bytes(fam)
            } else {
                let le = u32::from_le_bytes(fam);
                if le <= 0xffff {
                    le
                } else {
                    u32::from_be_bytes(fam)
                }
            };
            match v {
                2 => ipv4(f, off + 4, st),
                10 | 24 | 28 | 30 => ipv6(f, off + 4, st),
                _ => Err(DropReason::NotIp),
            }
        }
        LinkType::PPP => ppp_frame(f, off, st),
        LinkType::C_HDLC => {
            let et = be16(f, off + 2).ok_or(DropReason::TruncatedLink)?;
            // SLARP keepalives (0x8035) and CDP carry no IP flow: NotIp from ether_payload.
            ether_payload(f, off + 4, et, st)
        }
        LinkType::LINUX_SLL => {
            if f.len() < off + field::SLL_HDR {
                return Err(DropReason::TruncatedLink);
            }
            let et = be16(f, off + field::SLL_PROTO.start).ok_or(DropReason::TruncatedLink)?;
            ether_payload(f, off + field::SLL_HDR, et, st)
        }
        LinkType::LINUX_SLL2 => {
            if f.len() < off + field::SLL2_HDR {
                return Err(DropReason::TruncatedLink);
            }
            let et = be16(f, off + field::SLL2_PROTO.start).ok_or(DropReason::TruncatedLink)?;
            ether_payload(f, off + field::SLL2_HDR, et, st)
        }
        LinkType::PPI if allow_ppi => {
            // PPI header: version, flags, length (LE), DLT (LE); then the inner frame.
            let h = f.get(off..off + 8).ok_or(DropReason::TruncatedLink)?;
            let len = u16::from_le_bytes([h[2], h[3]]) as usize;
            let dlt = u32::from_le_bytes([h[4], h[5], h[6], h[7]]);
            if len < 8 {
                return Err(DropReason::TruncatedLink);
            }
            link_layer(LinkType(dlt), f, off + len, st, false)
        }
        _ => Err(DropReason::UnsupportedLinkType),
    }
}

/// Raw IP: the version nibble decides.
fn ip_any<'a>(f: &'a [u8], off: usize, st: &mut St) -> Result<Decoded<'a>, DropReason> {
    match byte(f, off).ok_or(DropReason::TruncatedLink)? >> 4 {
        4 => ipv4(f, off, st),
        6 => ipv6(f, off, st),
        _ => Err(DropReason::NotIp),
    }
}

fn ethernet<'a>(f: &'a [u8], off: usize, st: &mut St) -> Result<Decoded<'a>, DropReason> {
    let et = be16(f, off + field::ETH_TYPE.start).ok_or(DropReason::TruncatedLink)?;
    if et < 0x0600 {
        // 802.3 length field: only LLC/SNAP can carry IP.
        let llc = f.get(off + 14..off + 22).ok_or(DropReason::NotIp)?;
        if llc[0] == 0xaa && llc[1] == 0xaa && llc[2] == 0x03 {
            let et = u16::from_be_bytes([llc[6], llc[7]]);
            return ether_payload(f, off + 22, et, st);
        }
        return Err(DropReason::NotIp);
    }
    ether_payload(f, off + field::ETH_HDR, et, st)
}

fn ether_payload<'a>(
    f: &'a [u8],
    mut off: usize,
    mut et: u16,
    st: &mut St,
) -> Result<Decoded<'a>, DropReason> {
    let mut tags = 0;
    loop {
        match et {
            ethertype::IPV4 => return ipv4(f, off, st),
            ethertype::IPV6 => return ipv6(f, off, st),
            ethertype::VLAN | ethertype::QINQ | ethertype::QINQ_OLD => {
                tags += 1;
                if tags > MAX_VLAN_TAGS {
                    return Err(DropReason::TooManyLabels);
                }
                let tci = be16(f, off).ok_or(DropReason::TruncatedLink)?;
                et = be16(f, off + 2).ok_or(DropReason::TruncatedLink)?;
                st.vlan = tci & 0x0fff;
                off += 4;
            }
            ethertype::MPLS_UC | ethertype::MPLS_MC => return mpls(f, off, st),
            ethertype::PPPOE_SESSION => {
                // ver/type, code, session id, length; then the PPP protocol.
                let proto = be16(f, off + 6).ok_or(DropReason::TruncatedLink)?;
                return ppp_proto(f, off + 8, proto, st);
            }
            _ => return Err(DropReason::NotIp),
        }
    }
}

fn mpls<'a>(f: &'a [u8], mut off: usize, st: &mut St) -> Result<Decoded<'a>, DropReason> {
    for _ in 0..MAX_MPLS_LABELS {
        let e = be32(f, off).ok_or(DropReason::TruncatedLink)?;
        off += 4;
        if e & 0x100 != 0 {
            // Bottom of stack: the payload's first nibble tells IPv4, IPv6 or a pseudowire.
            return match byte(f, off).ok_or(DropReason::TruncatedLink)? >> 4 {
                4 => ipv4(f, off, st),
                6 => ipv6(f, off, st),
                // Ethernet pseudowire with a zero control word.
                0 => ethernet(f, off + 4, st),
                _ => Err(DropReason::NotIp),
            };
        }
    }
    Err(DropReason::TooManyLabels)
}

fn ppp_frame<'a>(f: &'a [u8], mut off: usize, st: &mut St) -> Result<Decoded<'a>, DropReason> {
    // Serial captures labelled PPP often hold Cisco HDLC (address 0x0f unicast / 0x8f
    // broadcast, then an ethertype), as BGP_Cisco_hdlc_slarp.pcap does; libpcap's PPP_SERIAL
    // and nDPI read them the same way.
    if let Some(0x0f | 0x8f) = byte(f, off) {
        let et = be16(f, off + 2).ok_or(DropReason::TruncatedLink)?;
        return ether_payload(f, off + 4, et, st);
    }
    // Optional HDLC-like framing: address 0xff, control 0x03.
    if f.get(off..off + 2) == Some(&[0xff, 0x03]) {
        off += 2;
    }
    let first = byte(f, off).ok_or(DropReason::TruncatedLink)?;
    if first & 1 == 1 {
        // Protocol-field compression: one byte.
        return ppp_proto(f, off + 1, first as u16, st);
    }
    let proto = be16(f, off).ok_or(DropReason::TruncatedLink)?;
    ppp_proto(f, off + 2, proto, st)
}

fn ppp_proto<'a>(
    f: &'a [u8],
    off: usize,
    proto: u16,
    st: &mut St,
) -> Result<Decoded<'a>, DropReason> {
    match proto {
        ppp::IPV4 => ipv4(f, off, st),
        ppp::IPV6 => ipv6(f, off, st),
        _ => Err(DropReason::NotIp),
    }
}

/// The IP layer's result before the transport: what `Decoded` needs from it.
struct Ip {
    version: u8,
    src: [u8; 16],
    dst: [u8; 16],
    proto: u8,
    ttl: u8,
    l3_offset: usize,
    ip_len: usize,
    frag: Option<Fragment>,
}

fn ipv4<'a>(f: &'a [u8], off: usize, st: &mut St) -> Result<Decoded<'a>, DropReason> {
    let h = f.get(off..off + 20).ok_or(DropReason::TruncatedIpv4)?;
    if h[0] >> 4 != 4 {
        return Err(DropReason::MalformedIpv4);
    }
    let ihl = (h[0] & 0x0f) as usize * 4;
    if ihl < 20 {
        return Err(DropReason::MalformedIpv4);
    }
    if f.len() < off + ihl {
        return Err(DropReason::TruncatedIpv4);
    }
    let total = u16::from_be_bytes([
        h[field::IP4_TOTAL_LEN.start],
        h[field::IP4_TOTAL_LEN.start + 1],
    ]) as usize;
    // A zero total length is what segmentation offload leaves in captures: use what was captured.
    let total = if total == 0 { f.len() - off } else { total };
    if total < ihl {
        return Err(DropReason::MalformedIpv4);
    }
    let end = (off + total).min(f.len());
    let f = &f[..end];
    let ff = u16::from_be_bytes([h[field::IP4_FRAG.start], h[field::IP4_FRAG.start + 1]]);
    let frag_off = (ff & 0x1fff) * 8;
    let more = ff & 0x2000 != 0;
    let frag = (more || frag_off != 0).then_some(Fragment {
        id: u16::from_be_bytes([h[field::IP4_ID.start], h[field::IP4_ID.start + 1]]) as u32,
        offset: frag_off,
        more,
    });
    let mut src = [0u8; 16];
    let mut dst = [0u8; 16];
    src[..4].copy_from_slice(&h[field::IP4_SRC]);
    dst[..4].copy_from_slice(&h[field::IP4_DST]);
    let ip = Ip {
        version: 4,
        src,
        dst,
        proto: h[field::IP4_PROTO],
        ttl: h[field::IP4_TTL],
        l3_offset: off,
        ip_len: total,
        frag,
    };
    after_ip(f, off + ihl, ip, st)
}

fn ipv6<'a>(f: &'a [u8], off: usize, st: &mut St) -> Result<Decoded<'a>, DropReason> {
    let h = f
        .get(off..off + field::IP6_HDR)
        .ok_or(DropReason::TruncatedIpv6)?;
    if h[0] >> 4 != 6 {
        return Err(DropReason::MalformedIpv6);
    }
    let plen = u16::from_be_bytes([
        h[field::IP6_PAYLOAD_LEN.start],
        h[field::IP6_PAYLOAD_LEN.start + 1],
    ]) as usize;
    // Zero: a jumbogram or an offloaded segment; use what was captured.
    let total = if plen == 0 {
        f.len() - off
    } else {
        field::IP6_HDR + plen
    };
    let end = (off + total).min(f.len());
    let f = &f[..end];
    let mut src = [0u8; 16];
    let mut dst = [0u8; 16];
    src.copy_from_slice(&h[field::IP6_SRC]);
    dst.copy_from_slice(&h[field::IP6_DST]);
    let mut next = h[field::IP6_NEXT];
    let mut at = off + field::IP6_HDR;
    let mut frag = None;
    let mut n = 0;
    loop {
        match next {
            // Hop-by-hop, routing, destination options, mobility-less generic form.
            0 | 43 | 60 => {
                let e = f.get(at..at + 2).ok_or(DropReason::TruncatedIpv6)?;
                next = e[0];
                at += (e[1] as usize + 1) * 8;
            }
            44 => {
                let e = f.get(at..at + 8).ok_or(DropReason::TruncatedIpv6)?;
                next = e[0];
                let fo = u16::from_be_bytes([e[2], e[3]]);
                frag = Some(Fragment {
                    id: u32::from_be_bytes([e[4], e[5], e[6], e[7]]),
                    offset: fo & 0xfff8,
                    more: fo & 1 != 0,
                });
                at += 8;
                if fo & 0xfff8 != 0 {
                    // A later fragment: what follows is data, not headers.
                    break;
                }
            }
            51 => {
                let e = f.get(at..at + 2).ok_or(DropReason::TruncatedIpv6)?;
                next = e[0];
                at += (e[1] as usize + 2) * 4;
            }
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
        src,
        dst,
        proto: next,
        ttl: h[field::IP6_HOPS],
        l3_offset: off,
        ip_len: total,
        frag,
    };
    after_ip(f, at, ip, st)
}

/// A flow with no transport ports: ICMP-less protocols, non-first fragments, unknown tunnels.
fn bare<'a>(f: &'a [u8], at: usize, ip: &Ip, st: &St) -> Decoded<'a> {
    Decoded {
        ip_version: ip.version,
        src: ip.src,
        dst: ip.dst,
        proto: ip.proto,
        src_port: 0,
        dst_port: 0,
        vlan: st.vlan,
        tunnel: st.tunnel,
        ttl: ip.ttl,
        l3_offset: ip.l3_offset.min(u16::MAX as usize) as u16,
        ip_len: ip.ip_len.min(u16::MAX as usize) as u16,
        tcp: None,
        icmp: None,
        frag: ip.frag,
        payload: f.get(at..).unwrap_or(&[]),
    }
}

fn after_ip<'a>(f: &'a [u8], at: usize, ip: Ip, st: &mut St) -> Result<Decoded<'a>, DropReason> {
    if ip.frag.is_some_and(|fr| fr.offset != 0) {
        // Later fragments carry no transport header.
        return Ok(bare(f, at, &ip, st));
    }
    match ip.proto {
        ip_proto::TCP => {
            let h = f.get(at..at + 20).ok_or(DropReason::TruncatedL4)?;
            let hl = (h[12] >> 4) as usize * 4;
            if hl < 20 {
                return Err(DropReason::MalformedL4);
            }
            let mut d = bare(f, at, &ip, st);
            d.src_port = u16::from_be_bytes([h[0], h[1]]);
            d.dst_port = u16::from_be_bytes([h[2], h[3]]);
            d.tcp = Some(TcpInfo {
                flags: h[13],
                seq: u32::from_be_bytes([h[4], h[5], h[6], h[7]]),
                ack: u32::from_be_bytes([h[8], h[9], h[10], h[11]]),
                window: u16::from_be_bytes([h[14], h[15]]),
            });
            // Options cut by the snap length leave an empty payload, not an error.
            d.payload = f.get(at + hl..).unwrap_or(&[]);
            Ok(d)
        }
        ip_proto::UDP => {
            let h = f.get(at..at + 8).ok_or(DropReason::TruncatedL4)?;
            let sport = u16::from_be_bytes([h[0], h[1]]);
            let dport = u16::from_be_bytes([h[2], h[3]]);
            let payload = f.get(at + 8..).unwrap_or(&[]);
            if st.cfg.decode_tunnels {
                let saved = (st.vlan, st.tunnel, st.depth);
                let inner = if dport == 4789 {
                    vxlan(f, at + 8, st)
                } else if sport == 2152 || dport == 2152 {
                    gtpu(f, at + 8, st)
                } else {
                    None
                };
                if let Some(d) = inner {
                    return Ok(d);
                }
                (st.vlan, st.tunnel, st.depth) = saved;
            }
            let mut d = bare(f, at, &ip, st);
            d.src_port = sport;
            d.dst_port = dport;
            d.payload = payload;
            Ok(d)
        }
        ip_proto::ICMP | ip_proto::ICMPV6 => {
            let h = f.get(at..at + 2).ok_or(DropReason::TruncatedL4)?;
            let mut d = bare(f, at, &ip, st);
            d.icmp = Some((h[0], h[1]));
            d.payload = f.get(at + 8..).unwrap_or(&[]);
            Ok(d)
        }
        ip_proto::SCTP => {
            let h = f.get(at..at + 12).ok_or(DropReason::TruncatedL4)?;
            let mut d = bare(f, at, &ip, st);
            d.src_port = u16::from_be_bytes([h[0], h[1]]);
            d.dst_port = u16::from_be_bytes([h[2], h[3]]);
            d.payload = f.get(at + 12..).unwrap_or(&[]);
            Ok(d)
        }
        ip_proto::IPIP | ip_proto::IPV6 => {
            let saved = (st.vlan, st.tunnel, st.depth);
            if st.enter(Tunnel::IpInIp) {
                let inner = if ip.proto == ip_proto::IPIP {
                    ipv4(f, at, st)
                } else {
                    ipv6(f, at, st)
                };
                if let Ok(d) = inner {
                    return Ok(d);
                }
                (st.vlan, st.tunnel, st.depth) = saved;
            }
            Ok(bare(f, at, &ip, st))
        }
        ip_proto::GRE => {
            let saved = (st.vlan, st.tunnel, st.depth);
            if let Some(d) = gre(f, at, st) {
                return Ok(d);
            }
            (st.vlan, st.tunnel, st.depth) = saved;
            Ok(bare(f, at, &ip, st))
        }
        _ => Ok(bare(f, at, &ip, st)),
    }
}

/// VXLAN (RFC 7348): 8-byte header with the I flag, then an Ethernet frame.
fn vxlan<'a>(f: &'a [u8], at: usize, st: &mut St) -> Option<Decoded<'a>> {
    let h = f.get(at..at + 8)?;
    if h[0] & 0x08 == 0 || !st.enter(Tunnel::Vxlan) {
        return None;
    }
    ethernet(f, at + 8, st).ok()
}

/// GTP-U v1 G-PDU (3GPP TS 29.281): the inner IP packet.
fn gtpu<'a>(f: &'a [u8], at: usize, st: &mut St) -> Option<Decoded<'a>> {
    let h = f.get(at..at + 8)?;
    let flags = h[0];
    if flags >> 5 != 1 || flags & 0x10 == 0 || h[1] != 0xff {
        return None;
    }
    let mut off = at + 8;
    if flags & 0x07 != 0 {
        // Sequence number, N-PDU number, next extension type.
        let mut next = byte(f, at + 11)?;
        off = at + 12;
        if flags & 0x04 != 0 {
            for _ in 0..MAX_GTP_EXT {
                if next == 0 {
                    break;
                }
                let len = byte(f, off)? as usize * 4;
                if len == 0 {
                    return None;
                }
                next = byte(f, off + len - 1)?;
                off += len;
            }
            if next != 0 {
                return None;
            }
        }
    }
    let v = byte(f, off)? >> 4;
    if (v != 4 && v != 6) || !st.enter(Tunnel::GtpU) {
        return None;
    }
    if v == 4 {
        ipv4(f, off, st).ok()
    } else {
        ipv6(f, off, st).ok()
    }
}

/// GRE (RFC 2784/2890; version 1 is PPTP's enhanced GRE carrying PPP).
fn gre<'a>(f: &'a [u8], at: usize, st: &mut St) -> Option<Decoded<'a>> {
    let flags = be16(f, at)?;
    let proto = be16(f, at + 2)?;
    let version = flags & 0x7;
    if flags & 0x4000 != 0 {
        // Source routing (RFC 1701): not followed.
        return None;
    }
    let mut off = at + 4;
    match version {
        0 => {
            if flags & 0x8000 != 0 {
                off += 4;
            }
            if flags & 0x2000 != 0 {
                off += 4;
            }
            if flags & 0x1000 != 0 {
                off += 4;
            }
        }
        1 => {
            // Key (payload length + call id) always; sequence and acknowledgment optional.
            off += 4;
            if flags & 0x1000 != 0 {
                off += 4;
            }
            if flags & 0x0080 != 0 {
                off += 4;
            }
        }
        _ => return None,
    }
    if off > f.len() || !st.enter(Tunnel::Gre) {
        return None;
    }
    match proto {
        ethertype::IPV4 => ipv4(f, off, st).ok(),
        ethertype::IPV6 => ipv6(f, off, st).ok(),
        ethertype::TEB => ethernet(f, off, st).ok(),
        ethertype::ERSPAN2 if flags & 0x1000 != 0 => ethernet(f, off + 8, st).ok(),
        ethertype::PPP if version == 1 => ppp_frame(f, off, st).ok(),
        _ => None,
    }
}
