//! Zero-copy decoding of captured frames down to the flow's 5-tuple.
//!
//! [`decode()`] takes one captured frame and its link type and returns a [`Decoded`] view that borrows
//! the L4 payload from the frame. It never allocates, never panics and contains no `unsafe`: every
//! read goes through bounds-checked slice access, every loop (VLAN tags, MPLS labels, IPv6
//! extension headers, radiotap bitmaps, nested tunnels) has a fixed cap, and every frame that
//! cannot be decoded yields a [`DropReason`] that the engine counts by name.
//!
//! The layers live in one module each and call each other directly (no dynamic dispatch), with
//! absolute offsets into the frame:
//!
//! * `link`: Ethernet II and 802.3 LLC/SNAP; 802.1Q/802.1ad tags, VN-Tag, 802.1ah I-TAG
//!   (provider backbone bridging) and Cisco FabricPath; MPLS (with Ethernet pseudowires); PPPoE
//!   sessions (behind an ethertype, or as link type 51) and PPP (with address/control and
//!   protocol-field compression); Cisco HDLC; Linux cooked v1/v2; BSD loopback; PPI; raw IP.
//! * `wifi`: IEEE 802.11 data frames (QoS, four addresses, +HTC, A-MSDU) with LLC/SNAP, bare or
//!   behind a radiotap, Prism, AVS or PPI header; shared with CAPWAP's 802.11 binding.
//! * `ip`: IPv4, IPv6 and its extension headers, fragments.
//! * `l4`: TCP, UDP, ICMP/ICMPv6, SCTP; other protocols are flows with ports 0.
//! * `tunnel`: GRE (with ERSPAN, PPTP), IP in IP, and over UDP: VXLAN, Geneve, GTP-U, CAPWAP
//!   data, Teredo, AYIYA and GRE-in-UDP.
//!
//! `read` holds the bounds-checked readers every access goes through.
//!
//! The flow is always the innermost IP packet's. A tunnel whose own header does not check out,
//! or whose inner packet does not decode, leaves the outer packet as the flow; but a tunnel that
//! carries a link-layer frame (an Ethernet frame in VXLAN, Geneve, GRE or CAPWAP, or an 802.11
//! frame in CAPWAP) whose type says it is not IP (ARP, LLDP, …) is a [`DropReason::NotIp`] drop,
//! as that frame would be on its own.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod decode;
pub mod fast;
mod ip;
mod l4;
mod link;
mod read;
mod tunnel;
mod wifi;

pub use fast::{fast_flow, FastAddrs, FastFlow};
pub use ip::MAX_IPV6_EXT;
pub use link::{MAX_MPLS_LABELS, MAX_PSEUDOWIRES, MAX_VLAN_TAGS};
pub use tunnel::{
    AYIYA_PORT, CAPWAP_DATA_PORT, GENEVE_PORT, GRE_IN_UDP_PORT, GTPU_PORT, MAX_GTP_EXT,
    MAX_TUNNEL_DEPTH, TEREDO_PORT, VXLAN_PORT,
};
pub use wifi::MAX_RADIOTAP_PRESENT;

/// A capture link type (the pcap `LINKTYPE_*` / DLT numbers).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LinkType(pub u32);

impl LinkType {
    /// BSD loopback: 4-byte address family in host byte order.
    pub const NULL: LinkType = LinkType(0);
    /// Ethernet II / 802.3.
    pub const ETHERNET: LinkType = LinkType(1);
    /// PPP (RFC 1661), optionally with HDLC-like framing (ff 03).
    pub const PPP: LinkType = LinkType(9);
    /// PPPoE (RFC 2516) without the Ethernet header: the PPPoE header comes first (DLT_PPP_ETHER).
    pub const PPP_ETHER: LinkType = LinkType(51);
    /// Raw IP (v4 or v6, told by the version nibble); DLT_RAW on most platforms.
    pub const RAW: LinkType = LinkType(101);
    /// Cisco HDLC.
    pub const C_HDLC: LinkType = LinkType(104);
    /// IEEE 802.11 frames without a capture header.
    pub const IEEE802_11: LinkType = LinkType(105);
    /// IEEE 802.11 behind a 144-byte Prism monitor-mode header (or an AVS header, which some
    /// captures of this type hold).
    pub const PRISM_HEADER: LinkType = LinkType(119);
    /// IEEE 802.11 behind a radiotap header.
    pub const IEEE802_11_RADIOTAP: LinkType = LinkType(127);
    /// IEEE 802.11 behind an AVS monitor-mode header.
    pub const IEEE802_11_AVS: LinkType = LinkType(163);
    /// DLT_RAW as numbered on OpenBSD (14) — also raw IP.
    pub const RAW_OPENBSD: LinkType = LinkType(14);
    /// DLT_RAW as numbered on some BSDs (12) — also raw IP.
    pub const RAW_BSD: LinkType = LinkType(12);
    /// Linux cooked capture v1.
    pub const LINUX_SLL: LinkType = LinkType(113);
    /// OpenBSD loopback: 4-byte address family in network byte order.
    pub const LOOP: LinkType = LinkType(108);
    /// Per-Packet Information header followed by its own DLT.
    pub const PPI: LinkType = LinkType(192);
    /// Raw IPv4.
    pub const IPV4: LinkType = LinkType(228);
    /// Raw IPv6.
    pub const IPV6: LinkType = LinkType(229);
    /// Linux cooked capture v2.
    pub const LINUX_SLL2: LinkType = LinkType(276);
}

/// Which options change how frames are decoded.
#[derive(Clone, Copy, Debug)]
pub struct DecodeConfig {
    /// Decode GRE, IP-in-IP, and over UDP: VXLAN (4789), Geneve (6081), GTP-U (2152), CAPWAP data
    /// (5247), Teredo (3544), AYIYA (5072) and GRE-in-UDP (4754), so the flow is the inner one.
    pub decode_tunnels: bool,
}

impl Default for DecodeConfig {
    fn default() -> Self {
        DecodeConfig {
            decode_tunnels: true,
        }
    }
}

/// The outermost tunnel that was removed to reach the inner flow.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Tunnel {
    /// No tunnel.
    #[default]
    None,
    /// GRE (RFC 2784/2890), including ERSPAN-less transparent Ethernet bridging.
    Gre,
    /// VXLAN (RFC 7348).
    Vxlan,
    /// GTP-U (3GPP TS 29.281).
    GtpU,
    /// IPv4 or IPv6 carried directly in IPv4 or IPv6 (protocols 4 and 41).
    IpInIp,
    /// CAPWAP data channel (RFC 5415, UDP 5247): 802.3 frames, or 802.11 data frames (RFC 5416)
    /// from a wireless access point to its controller.
    Capwap,
    /// Geneve (RFC 8926, UDP 6081): Ethernet frames or IP packets behind variable options.
    Geneve,
    /// Teredo (RFC 4380, UDP 3544): IPv6 in UDP over IPv4, with optional authentication and
    /// origin indication headers.
    Teredo,
    /// AYIYA, Anything In Anything (draft-massar-v6ops-ayiya, UDP 5072): IPv4 or IPv6 behind an
    /// identity and a signature.
    Ayiya,
    /// GRE-in-UDP (RFC 8086, UDP 4754): a GRE header and its payload inside UDP.
    GreInUdp,
}

impl Tunnel {
    /// The name written in flow records ("" for none).
    pub fn as_str(self) -> &'static str {
        match self {
            Tunnel::None => "",
            Tunnel::Gre => "GRE",
            Tunnel::Vxlan => "VXLAN",
            Tunnel::GtpU => "GTP-U",
            Tunnel::IpInIp => "IP-in-IP",
            Tunnel::Capwap => "CAPWAP",
            Tunnel::Geneve => "Geneve",
            Tunnel::Teredo => "Teredo",
            Tunnel::Ayiya => "AYIYA",
            Tunnel::GreInUdp => "GRE-in-UDP",
        }
    }
}

/// IP fragmentation information of the (innermost) IP header.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Fragment {
    /// IPv4 identification (16 bits) or IPv6 fragment identification (32 bits).
    pub id: u32,
    /// Offset of this fragment's data in bytes.
    pub offset: u16,
    /// More-fragments flag.
    pub more: bool,
}

/// TCP header fields kept for flow tracking.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct TcpInfo {
    /// Flags byte (FIN=0x01, SYN=0x02, RST=0x04, PSH=0x08, ACK=0x10, URG=0x20, ECE=0x40, CWR=0x80).
    pub flags: u8,
    /// Sequence number.
    pub seq: u32,
    /// Acknowledgement number.
    pub ack: u32,
    /// Window (unscaled).
    pub window: u16,
    /// Header length in bytes (the data offset: 20 to 60); options lie between byte 20 and it.
    pub hdr_len: u8,
    /// Segment length by the IP header (its total length less the IP and TCP headers), which a
    /// capture cut short by its snap length keeps: what TCP's sequence numbers count, where the
    /// payload handed to classifiers is only what was captured.
    pub seg_len: u16,
}

impl TcpInfo {
    /// Are this segment's data bytes the link's minimum-frame padding, which the sender counted
    /// into the IP total length? Ethernet pads a frame to 60 bytes (46 of IP); a bare ACK of 40
    /// bytes, or a SYN-ACK with one option, then carries up to 6 zero bytes that some stacks and
    /// middleboxes include in the IP length, so they read as TCP data at the sequence number the
    /// next real segment reuses. True for a segment without PSH or URG whose IP packet is at
    /// most 46 bytes and whose payload is all zero: those bytes are not the application's and
    /// are not inspected (a probe would otherwise read a ClientHello shifted by two zero bytes,
    /// or rule itself out on a SYN-ACK's two).
    pub fn padding_counted_as_data(&self, ip_len: u16, payload: &[u8]) -> bool {
        const PSH_URG: u8 = tcp_flags::PSH | 0x20;
        self.flags & PSH_URG == 0
            && ip_len <= 46
            && !payload.is_empty()
            && payload.iter().all(|&b| b == 0)
    }
}

/// TCP flag bits.
pub mod tcp_flags {
    /// FIN
    pub const FIN: u8 = 0x01;
    /// SYN
    pub const SYN: u8 = 0x02;
    /// RST
    pub const RST: u8 = 0x04;
    /// PSH
    pub const PSH: u8 = 0x08;
    /// ACK
    pub const ACK: u8 = 0x10;
}

/// IANA protocol numbers used by the decoder.
pub mod ip_proto {
    /// ICMP
    pub const ICMP: u8 = 1;
    /// IPv4 in IP
    pub const IPIP: u8 = 4;
    /// TCP
    pub const TCP: u8 = 6;
    /// UDP
    pub const UDP: u8 = 17;
    /// IPv6 in IP
    pub const IPV6: u8 = 41;
    /// GRE
    pub const GRE: u8 = 47;
    /// ICMPv6
    pub const ICMPV6: u8 = 58;
    /// SCTP
    pub const SCTP: u8 = 132;
}

/// The decoded view of one frame: the innermost IP flow's tuple plus what the flow table needs.
///
/// Addresses are 16 bytes; an IPv4 address occupies the first 4 bytes and the rest are zero.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decoded<'a> {
    /// 4 or 6.
    pub ip_version: u8,
    /// Source address (IPv4 in the first 4 bytes).
    pub src: [u8; 16],
    /// Destination address (IPv4 in the first 4 bytes).
    pub dst: [u8; 16],
    /// Transport protocol number (after IPv6 extension headers).
    pub proto: u8,
    /// Source port (0 when the transport has none, or for non-first fragments).
    pub src_port: u16,
    /// Destination port (0 when the transport has none, or for non-first fragments).
    pub dst_port: u16,
    /// VLAN id of the innermost 802.1Q tag seen (0 when untagged).
    pub vlan: u16,
    /// The outermost tunnel removed, if any.
    pub tunnel: Tunnel,
    /// IP TTL / hop limit of the innermost IP header.
    pub ttl: u8,
    /// Offset of the innermost IP header in the frame.
    pub l3_offset: u16,
    /// Total length of the innermost IP packet according to its header.
    pub ip_len: u16,
    /// TCP fields when `proto` is TCP and this is not a non-first fragment.
    pub tcp: Option<TcpInfo>,
    /// ICMP/ICMPv6 type and code when `proto` is ICMP/ICMPv6.
    pub icmp: Option<(u8, u8)>,
    /// Fragment information when the innermost IP packet is a fragment.
    pub frag: Option<Fragment>,
    /// The transport payload (after the L4 header), cut to what was captured and to `ip_len`.
    pub payload: &'a [u8],
}

impl Decoded<'_> {
    /// Does the innermost IP packet's header claim more bytes than the frame had on the wire?
    /// `wire_len` is the frame's original length from the capture record (at least what was
    /// captured). A capture cut short by its snap length keeps the original length, so a packet
    /// that fails this check has a corrupt length field (tshark: "IPv4 total length exceeds
    /// packet length"); nDPI does not count such packets in any flow, and neither do we.
    #[inline]
    pub fn beyond_frame(&self, wire_len: usize, captured: usize) -> bool {
        usize::from(self.l3_offset) + usize::from(self.ip_len) > wire_len.max(captured)
    }
}

/// Why a frame was not decoded to a flow. Each reason is counted by name in the run summary.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum DropReason {
    /// The link type is not supported.
    UnsupportedLinkType,
    /// The frame ended inside a link-layer header.
    TruncatedLink,
    /// Not IPv4/IPv6 (ARP, LLDP, STP, …): a valid frame that carries no IP flow.
    NotIp,
    /// The frame ended inside an IPv4 header or the header length is invalid.
    TruncatedIpv4,
    /// An IPv4 header with a bad version or header length, or total length below the header.
    MalformedIpv4,
    /// The frame ended inside an IPv6 header or extension header.
    TruncatedIpv6,
    /// An IPv6 header with bad fields or too many extension headers.
    MalformedIpv6,
    /// The frame ended inside a transport header (TCP, UDP, ICMP, SCTP).
    TruncatedL4,
    /// A transport header with invalid fields (e.g. TCP data offset < 5).
    MalformedL4,
    /// A tunnel header that could not be decoded, or nesting deeper than the cap.
    MalformedTunnel,
    /// Too many VLAN tags, VN-Tags or MPLS labels, or Ethernet frames nested too deep inside
    /// Ethernet frames (MPLS pseudowires, 802.1ah, FabricPath).
    TooManyLabels,
    /// An IP header whose total length runs past the end of the frame as it was on the wire
    /// ([`Decoded::beyond_frame`]): a corrupt length, not a capture cut short by its snap length.
    IpBeyondFrame,
    /// An IEEE 802.11 frame that carries no data: management (beacons, probes, …), control (ACK,
    /// RTS, …), a data frame without a body (Null, QoS Null), or a protocol version other than 0.
    WifiNotData,
    /// An IEEE 802.11 data frame with the Protected flag whose body is not readable LLC/SNAP
    /// (WEP, TKIP or CCMP encrypted).
    WifiEncrypted,
}

impl DropReason {
    /// What the reason means, for people reading a run's summary.
    pub fn describe(self) -> &'static str {
        match self {
            DropReason::UnsupportedLinkType => "link type not supported",
            DropReason::TruncatedLink => "cut inside the link header",
            DropReason::NotIp => "not IP (ARP, LLDP, STP, …)",
            DropReason::TruncatedIpv4 => "cut inside the IPv4 header",
            DropReason::MalformedIpv4 => "malformed IPv4 header",
            DropReason::TruncatedIpv6 => "cut inside the IPv6 headers",
            DropReason::MalformedIpv6 => "malformed IPv6 header",
            DropReason::TruncatedL4 => "cut inside the transport header",
            DropReason::MalformedL4 => "malformed transport header",
            DropReason::MalformedTunnel => "undecodable tunnel",
            DropReason::TooManyLabels => "too many VLAN tags or MPLS labels",
            DropReason::IpBeyondFrame => "IP length beyond the frame (corrupt)",
            DropReason::WifiNotData => "802.11 management, control or null frame",
            DropReason::WifiEncrypted => "802.11 frame encrypted (WEP/WPA)",
        }
    }

    /// Number of reasons (size of a counter array).
    pub const COUNT: usize = 14;
    /// All reasons, in counter order.
    pub const ALL: [DropReason; Self::COUNT] = [
        DropReason::UnsupportedLinkType,
        DropReason::TruncatedLink,
        DropReason::NotIp,
        DropReason::TruncatedIpv4,
        DropReason::MalformedIpv4,
        DropReason::TruncatedIpv6,
        DropReason::MalformedIpv6,
        DropReason::TruncatedL4,
        DropReason::MalformedL4,
        DropReason::MalformedTunnel,
        DropReason::TooManyLabels,
        DropReason::IpBeyondFrame,
        DropReason::WifiNotData,
        DropReason::WifiEncrypted,
    ];

    /// Stable snake_case name used in summaries and metrics.
    pub fn as_str(self) -> &'static str {
        match self {
            DropReason::UnsupportedLinkType => "unsupported_link_type",
            DropReason::TruncatedLink => "truncated_link",
            DropReason::NotIp => "not_ip",
            DropReason::TruncatedIpv4 => "truncated_ipv4",
            DropReason::MalformedIpv4 => "malformed_ipv4",
            DropReason::TruncatedIpv6 => "truncated_ipv6",
            DropReason::MalformedIpv6 => "malformed_ipv6",
            DropReason::TruncatedL4 => "truncated_l4",
            DropReason::MalformedL4 => "malformed_l4",
            DropReason::MalformedTunnel => "malformed_tunnel",
            DropReason::TooManyLabels => "too_many_labels",
            DropReason::IpBeyondFrame => "ip_beyond_frame",
            DropReason::WifiNotData => "wifi_not_data",
            DropReason::WifiEncrypted => "wifi_encrypted",
        }
    }

    /// Index into a counter array of size [`DropReason::COUNT`].
    pub fn index(self) -> usize {
        self as usize
    }
}

/// Decode one captured frame of link type `link` down to the innermost IP flow.
///
/// Lax where captures are short (a payload cut by the snap length is just shorter; TCP options
/// cut off leave an empty payload), strict where headers lie (a bad version, header length or
/// total length is an error). A tunnel whose inner packet cannot be decoded yields the outer
/// packet as the flow rather than a drop, except that a link-layer frame carried by a tunnel and
/// typed as not IP is a [`DropReason::NotIp`] drop (see the crate documentation).
pub fn decode<'a>(
    link: LinkType,
    frame: &'a [u8],
    cfg: &DecodeConfig,
) -> Result<Decoded<'a>, DropReason> {
    decode::decode(link, frame, cfg)
}
