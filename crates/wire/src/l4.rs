//! Transports: TCP, UDP, ICMP/ICMPv6 and SCTP ports and fields; other protocols are flows with
//! ports 0. Tunnels carried by a transport (the UDP tunnels, GRE, IP in IP) branch off here.

use crate::decode::Ctx;
use crate::ip::Ip;
use crate::read::{chunk, h16, h32, h8};
use crate::tunnel;
use crate::{ip_proto, Decoded, DropReason, TcpInfo};

/// TCP header (RFC 9293).
mod tcp {
    use core::ops::Range;
    pub const SRC_PORT: Range<usize> = 0..2;
    pub const DST_PORT: Range<usize> = 2..4;
    pub const SEQ: Range<usize> = 4..8;
    pub const ACK: Range<usize> = 8..12;
    pub const DATA_OFFSET: usize = 12;
    pub const FLAGS: usize = 13;
    pub const WINDOW: Range<usize> = 14..16;
    /// Fixed part; options follow up to the data offset.
    pub const HDR: usize = 20;
}

/// UDP header.
mod udp {
    use core::ops::Range;
    pub const SRC_PORT: Range<usize> = 0..2;
    pub const DST_PORT: Range<usize> = 2..4;
    pub const LEN: Range<usize> = 4..6;
    pub const HDR: usize = 8;
}

/// ICMP / ICMPv6 header: type and code are what the flow keeps; the payload starts after the
/// 8-byte header (type, code, checksum, rest of header).
mod icmp {
    pub const TYPE: usize = 0;
    pub const CODE: usize = 1;
    pub const MIN: usize = 2;
    pub const HDR: usize = 8;
}

/// SCTP common header.
mod sctp {
    use core::ops::Range;
    pub const SRC_PORT: Range<usize> = 0..2;
    pub const DST_PORT: Range<usize> = 2..4;
    pub const HDR: usize = 12;
}

/// The transport of `ip` at `at` (the frame `f` already ends where the IP packet ends).
#[inline(always)]
pub(crate) fn transport<'a>(
    f: &'a [u8],
    at: usize,
    ip: &Ip,
    ctx: &mut Ctx,
) -> Result<Decoded<'a>, DropReason> {
    if ip.is_later_fragment() {
        return Ok(ip.flow(f, at, ctx));
    }
    // Tunnels are followed only in whole packets: every fragment of a tunnelled datagram then
    // keys the same outer flow.
    let tunnels = ip.frag.is_none();
    match ip.proto {
        ip_proto::TCP => {
            let h = chunk::<{ tcp::HDR }>(f, at).ok_or(DropReason::TruncatedL4)?;
            let hl = usize::from(h8(h, tcp::DATA_OFFSET) >> 4) * 4;
            if hl < tcp::HDR {
                return Err(DropReason::MalformedL4);
            }
            let mut d = ip.flow(f, at + hl, ctx);
            d.src_port = h16(h, tcp::SRC_PORT);
            d.dst_port = h16(h, tcp::DST_PORT);
            d.tcp = Some(TcpInfo {
                flags: h8(h, tcp::FLAGS),
                seq: h32(h, tcp::SEQ),
                ack: h32(h, tcp::ACK),
                window: h16(h, tcp::WINDOW),
                hdr_len: hl as u8,
                // (A total length of 0, segmentation offload's, is what was captured: ip.rs.)
                seg_len: (ip.l3_offset + ip.ip_len)
                    .saturating_sub(at + hl)
                    .min(usize::from(u16::MAX)) as u16,
            });
            Ok(d)
        }
        ip_proto::UDP => {
            let h = chunk::<{ udp::HDR }>(f, at).ok_or(DropReason::TruncatedL4)?;
            let sport = h16(h, udp::SRC_PORT);
            let dport = h16(h, udp::DST_PORT);
            if tunnels && tunnel::carries_tunnel(sport, dport) {
                let end = at + usize::from(h16(h, udp::LEN));
                if let Some(d) = tunnel::over_udp(f, at + udp::HDR, end, sport, dport, ctx)? {
                    return Ok(d);
                }
            }
            let mut d = ip.flow(f, at + udp::HDR, ctx);
            d.src_port = sport;
            d.dst_port = dport;
            Ok(d)
        }
        ip_proto::ICMP | ip_proto::ICMPV6 => {
            let h = chunk::<{ icmp::MIN }>(f, at).ok_or(DropReason::TruncatedL4)?;
            let mut d = ip.flow(f, at + icmp::HDR, ctx);
            d.icmp = Some((h8(h, icmp::TYPE), h8(h, icmp::CODE)));
            Ok(d)
        }
        ip_proto::SCTP => {
            let h = chunk::<{ sctp::HDR }>(f, at).ok_or(DropReason::TruncatedL4)?;
            let mut d = ip.flow(f, at + sctp::HDR, ctx);
            d.src_port = h16(h, sctp::SRC_PORT);
            d.dst_port = h16(h, sctp::DST_PORT);
            Ok(d)
        }
        ip_proto::IPIP | ip_proto::IPV6 if tunnels => {
            let v6 = ip.proto == ip_proto::IPV6;
            Ok(tunnel::ip_in_ip(f, at, v6, ctx)?.unwrap_or_else(|| ip.flow(f, at, ctx)))
        }
        ip_proto::GRE if tunnels => {
            Ok(tunnel::gre(f, at, ctx)?.unwrap_or_else(|| ip.flow(f, at, ctx)))
        }
        // ESP, AH-only, OSPF, VRRP, no next header, ...: the flow with ports 0.
        _ => Ok(ip.flow(f, at, ctx)),
    }
}
