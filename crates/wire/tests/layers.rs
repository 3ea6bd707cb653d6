//! Hand-built frames for every link type, encapsulation, extension header, tunnel and drop
//! reason, checked field by field against the values put in.

mod common;

use common::*;
use wirespeed_wire::{
    decode, DecodeConfig, Decoded, DropReason, Fragment, LinkType, TcpInfo, Tunnel,
};

const ON: DecodeConfig = DecodeConfig {
    decode_tunnels: true,
};
const OFF: DecodeConfig = DecodeConfig {
    decode_tunnels: false,
};

/// Decode a copy of `f` that lives for the rest of the test run, so results can be kept.
fn dec(link: LinkType, f: &[u8]) -> Result<Decoded<'static>, DropReason> {
    let f: &'static [u8] = Box::leak(f.to_vec().into_boxed_slice());
    decode(link, f, &ON)
}

fn ok(link: LinkType, f: &[u8]) -> Decoded<'static> {
    dec(link, f).unwrap_or_else(|e| panic!("{link:?}: {e:?}"))
}

fn err(link: LinkType, f: &[u8]) -> DropReason {
    match dec(link, f) {
        Ok(d) => panic!("{link:?}: decoded {d:?}"),
        Err(e) => e,
    }
}

const PAYLOAD: &[u8] = b"GET / HTTP/1.1\r\n";

/// An IPv4 TCP segment 1234 -> 80 with PAYLOAD.
fn tcp4() -> Vec<u8> {
    ipv4(6, &tcp(1234, 80, PAYLOAD))
}

/// An IPv6 UDP datagram 5353 -> 53 with PAYLOAD.
fn udp6() -> Vec<u8> {
    ipv6(17, &udp(5353, 53, PAYLOAD))
}

/// The flow of `tcp4()`, wherever it was found.
fn is_tcp4(d: &Decoded<'_>, l3: u16) {
    assert_eq!(d.ip_version, 4);
    assert_eq!(d.src, a4(SRC4));
    assert_eq!(d.dst, a4(DST4));
    assert_eq!(d.proto, 6);
    assert_eq!((d.src_port, d.dst_port), (1234, 80));
    assert_eq!(d.ttl, TTL);
    assert_eq!(d.l3_offset, l3);
    assert_eq!(d.ip_len as usize, 20 + 20 + PAYLOAD.len());
    assert_eq!(
        d.tcp,
        Some(TcpInfo {
            flags: 0x18,
            seq: SEQ,
            ack: ACK,
            window: WINDOW,
            hdr_len: 20,
            seg_len: PAYLOAD.len() as u16,
        })
    );
    assert_eq!(d.icmp, None);
    assert_eq!(d.frag, None);
    assert_eq!(d.payload, PAYLOAD);
}

/// The flow of `udp6()`.
fn is_udp6(d: &Decoded<'_>, l3: u16) {
    assert_eq!(d.ip_version, 6);
    assert_eq!(d.src, SRC6);
    assert_eq!(d.dst, DST6);
    assert_eq!(d.proto, 17);
    assert_eq!((d.src_port, d.dst_port), (5353, 53));
    assert_eq!(d.ttl, TTL);
    assert_eq!(d.l3_offset, l3);
    assert_eq!(d.ip_len as usize, 40 + 8 + PAYLOAD.len());
    assert_eq!(d.tcp, None);
    assert_eq!(d.frag, None);
    assert_eq!(d.payload, PAYLOAD);
}

// ---------------------------------------------------------------- link types

#[test]
fn ethernet_ii() {
    let d = ok(LinkType::ETHERNET, &eth(ET_IPV4, &tcp4()));
    is_tcp4(&d, 14);
    assert_eq!((d.vlan, d.tunnel), (0, Tunnel::None));
    is_udp6(&ok(LinkType::ETHERNET, &eth(ET_IPV6, &udp6())), 14);
    assert_eq!(
        err(LinkType::ETHERNET, &eth(0x0806, &[0; 28])),
        DropReason::NotIp
    );
    assert_eq!(err(LinkType::ETHERNET, &[0; 13]), DropReason::TruncatedLink);
}

/// 802.3 length field, then LLC.
fn dot3(llc: &[u8], body: &[u8]) -> Vec<u8> {
    let mut f = Vec::new();
    f.extend_from_slice(&DST_MAC);
    f.extend_from_slice(&SRC_MAC);
    f.extend_from_slice(&((llc.len() + body.len()) as u16).to_be_bytes());
    f.extend_from_slice(llc);
    f.extend_from_slice(body);
    f
}

#[test]
fn ieee_802_3_llc_snap() {
    let snap4 = [0xaa, 0xaa, 0x03, 0, 0, 0, 0x08, 0x00];
    is_tcp4(&ok(LinkType::ETHERNET, &dot3(&snap4, &tcp4())), 22);
    let snap6 = [0xaa, 0xaa, 0x03, 0, 0, 0, 0x86, 0xdd];
    is_udp6(&ok(LinkType::ETHERNET, &dot3(&snap6, &udp6())), 22);
    // SNAP carrying AppleTalk, and plain LLC (spanning tree): no IP.
    let aarp = [0xaa, 0xaa, 0x03, 0x08, 0x00, 0x07, 0x80, 0xf3];
    assert_eq!(
        err(LinkType::ETHERNET, &dot3(&aarp, &[0; 28])),
        DropReason::NotIp
    );
    assert_eq!(
        err(LinkType::ETHERNET, &dot3(&[0x42, 0x42, 0x03], &[0; 35])),
        DropReason::NotIp
    );
    // LLC cut short, SNAP cut short.
    assert_eq!(
        err(LinkType::ETHERNET, &dot3(&[0xaa, 0xaa], &[])),
        DropReason::TruncatedLink
    );
    assert_eq!(
        err(LinkType::ETHERNET, &dot3(&snap4[..6], &[])),
        DropReason::TruncatedLink
    );
}

#[test]
fn bsd_null_in_either_byte_order() {
    for fam in [2u32.to_le_bytes(), 2u32.to_be_bytes()] {
        let mut f = fam.to_vec();
        f.extend_from_slice(&tcp4());
        is_tcp4(&ok(LinkType::NULL, &f), 4);
        is_tcp4(&ok(LinkType::LOOP, &f), 4);
    }
    for af in [10u32, 24, 28, 30] {
        for fam in [af.to_le_bytes(), af.to_be_bytes()] {
            let mut f = fam.to_vec();
            f.extend_from_slice(&udp6());
            is_udp6(&ok(LinkType::NULL, &f), 4);
            is_udp6(&ok(LinkType::LOOP, &f), 4);
        }
    }
    let mut ipx = 23u32.to_le_bytes().to_vec();
    ipx.extend_from_slice(&tcp4());
    assert_eq!(err(LinkType::NULL, &ipx), DropReason::NotIp);
    assert_eq!(err(LinkType::NULL, &[2, 0, 0]), DropReason::TruncatedLink);
    assert_eq!(err(LinkType::LOOP, &[]), DropReason::TruncatedLink);
}

#[test]
fn raw_ip_by_version_nibble() {
    for link in [LinkType::RAW, LinkType::RAW_BSD, LinkType::RAW_OPENBSD] {
        is_tcp4(&ok(link, &tcp4()), 0);
        is_udp6(&ok(link, &udp6()), 0);
        let mut v5 = tcp4();
        v5[0] = 0x55;
        assert_eq!(err(link, &v5), DropReason::NotIp);
        assert_eq!(err(link, &[]), DropReason::TruncatedLink);
    }
    is_tcp4(&ok(LinkType::IPV4, &tcp4()), 0);
    is_udp6(&ok(LinkType::IPV6, &udp6()), 0);
    assert_eq!(err(LinkType::IPV4, &udp6()), DropReason::MalformedIpv4);
    assert_eq!(err(LinkType::IPV6, &tcp4()), DropReason::MalformedIpv6);
}

#[test]
fn ppp_framings() {
    let with = |head: &[u8], ip: &[u8]| [head, ip].concat();
    is_tcp4(
        &ok(LinkType::PPP, &with(&[0xff, 0x03, 0x00, 0x21], &tcp4())),
        4,
    );
    is_udp6(&ok(LinkType::PPP, &with(&[0x00, 0x57], &udp6())), 2);
    // Protocol-field compression, with and without address/control.
    is_tcp4(&ok(LinkType::PPP, &with(&[0x21], &tcp4())), 1);
    is_udp6(&ok(LinkType::PPP, &with(&[0xff, 0x03, 0x57], &udp6())), 3);
    // MPLS over PPP.
    is_tcp4(
        &ok(LinkType::PPP, &with(&[0x02, 0x81], &mpls(2, &tcp4()))),
        10,
    );
    // LCP.
    assert_eq!(
        err(
            LinkType::PPP,
            &with(&[0xff, 0x03, 0xc0, 0x21], &[1, 1, 0, 4])
        ),
        DropReason::NotIp
    );
    assert_eq!(err(LinkType::PPP, &[0xff, 0x03]), DropReason::TruncatedLink);
    assert_eq!(err(LinkType::PPP, &[0x00]), DropReason::TruncatedLink);
    // Cisco HDLC in a capture labelled PPP (as BGP_Cisco_hdlc_slarp.pcap).
    is_tcp4(
        &ok(LinkType::PPP, &with(&[0x0f, 0x00, 0x08, 0x00], &tcp4())),
        4,
    );
}

#[test]
fn cisco_hdlc() {
    let f = [&[0x0f, 0x00, 0x08, 0x00][..], &tcp4()].concat();
    is_tcp4(&ok(LinkType::C_HDLC, &f), 4);
    let f = [&[0x8f, 0x00, 0x86, 0xdd][..], &udp6()].concat();
    is_udp6(&ok(LinkType::C_HDLC, &f), 4);
    // SLARP keepalive.
    let slarp = [&[0x8f, 0x00, 0x80, 0x35][..], &[0; 18]].concat();
    assert_eq!(err(LinkType::C_HDLC, &slarp), DropReason::NotIp);
    assert_eq!(
        err(LinkType::C_HDLC, &[0x0f, 0x00, 0x08]),
        DropReason::TruncatedLink
    );
}

fn sll(hatype: u16, proto: u16, body: &[u8]) -> Vec<u8> {
    let mut f = vec![0, 0];
    f.extend_from_slice(&hatype.to_be_bytes());
    f.extend_from_slice(&[0, 6, 2, 0, 0, 0, 0, 1, 0, 0]);
    f.extend_from_slice(&proto.to_be_bytes());
    f.extend_from_slice(body);
    f
}

fn sll2(hatype: u16, proto: u16, body: &[u8]) -> Vec<u8> {
    let mut f = proto.to_be_bytes().to_vec();
    f.extend_from_slice(&[0, 0, 0, 0, 0, 3]);
    f.extend_from_slice(&hatype.to_be_bytes());
    f.extend_from_slice(&[0, 6, 2, 0, 0, 0, 0, 1, 0, 0]);
    f.extend_from_slice(body);
    f
}

#[test]
fn linux_cooked_v1_and_v2() {
    is_tcp4(&ok(LinkType::LINUX_SLL, &sll(1, ET_IPV4, &tcp4())), 16);
    is_udp6(&ok(LinkType::LINUX_SLL, &sll(1, ET_IPV6, &udp6())), 16);
    is_tcp4(&ok(LinkType::LINUX_SLL2, &sll2(1, ET_IPV4, &tcp4())), 20);
    is_udp6(&ok(LinkType::LINUX_SLL2, &sll2(772, ET_IPV6, &udp6())), 20);
    // A tag kept in the cooked frame.
    let tagged = [&[0x00, 0x07, 0x08, 0x00][..], &tcp4()].concat();
    let d = ok(LinkType::LINUX_SLL, &sll(1, 0x8100, &tagged));
    is_tcp4(&d, 20);
    assert_eq!(d.vlan, 7);
    // 802.2 frames, Novell 802.3, ARP, netlink.
    assert_eq!(
        err(LinkType::LINUX_SLL, &sll(1, 0x0004, &[0x42; 40])),
        DropReason::NotIp
    );
    assert_eq!(
        err(LinkType::LINUX_SLL, &sll(1, 0x0001, &[0xff; 40])),
        DropReason::NotIp
    );
    assert_eq!(
        err(LinkType::LINUX_SLL2, &sll2(1, 0x0806, &[0; 28])),
        DropReason::NotIp
    );
    assert_eq!(
        err(LinkType::LINUX_SLL, &sll(824, ET_IPV4, &tcp4())),
        DropReason::NotIp
    );
    assert_eq!(
        err(LinkType::LINUX_SLL, &sll(1, ET_IPV4, &[])[..15]),
        DropReason::TruncatedLink
    );
    assert_eq!(
        err(LinkType::LINUX_SLL2, &sll2(1, ET_IPV4, &[])[..19]),
        DropReason::TruncatedLink
    );
}

fn ppi(len: u16, dlt: u32, extra: usize, body: &[u8]) -> Vec<u8> {
    let mut f = vec![0, 0];
    f.extend_from_slice(&len.to_le_bytes());
    f.extend_from_slice(&dlt.to_le_bytes());
    f.resize(8 + extra, 0x77);
    f.extend_from_slice(body);
    f
}

#[test]
fn ppi_header_then_its_dlt() {
    let e = eth(ET_IPV4, &tcp4());
    is_tcp4(&ok(LinkType::PPI, &ppi(8, 1, 0, &e)), 22);
    // With a field (e.g. 802.11 common, 20 bytes) inside the header length.
    is_tcp4(&ok(LinkType::PPI, &ppi(28, 1, 20, &e)), 42);
    is_udp6(&ok(LinkType::PPI, &ppi(8, 229, 0, &udp6())), 8);
    // PPI in PPI is not followed.
    assert_eq!(
        err(LinkType::PPI, &ppi(8, 192, 0, &ppi(8, 1, 0, &e))),
        DropReason::UnsupportedLinkType
    );
    // 802.11 (DLT 105) behind a PPI header with an 802.11-common field (20 bytes): a data frame
    // from the DS, then a beacon.
    let w = wifi80211([0x08, 0x02], [0, 0], 0, &snap(ET_IPV4, &tcp4()));
    is_tcp4(&ok(LinkType::PPI, &ppi(28, 105, 20, &w)), 28 + 24 + 8);
    let beacon = wifi80211([0x80, 0x00], [0, 0], 0, &[0; 12]);
    assert_eq!(
        err(LinkType::PPI, &ppi(28, 105, 20, &beacon)),
        DropReason::WifiNotData
    );
    assert_eq!(
        err(LinkType::PPI, &ppi(4, 1, 0, &e)),
        DropReason::TruncatedLink
    );
    assert_eq!(
        err(LinkType::PPI, &[0, 0, 8, 0, 1, 0, 0]),
        DropReason::TruncatedLink
    );
    // Header length past the frame.
    assert_eq!(
        err(LinkType::PPI, &ppi(200, 1, 0, &e)),
        DropReason::TruncatedLink
    );
}

#[test]
fn unsupported_link_types() {
    for l in [2u32, 50, 106, 147, 0xffff_ffff] {
        assert_eq!(
            err(LinkType(l), &eth(ET_IPV4, &tcp4())),
            DropReason::UnsupportedLinkType
        );
    }
}

// ---------------------------------------------------------------- Ethernet payloads

#[test]
fn vlan_tags_innermost_wins() {
    let d = ok(
        LinkType::ETHERNET,
        &eth_tagged(&[(0x8100, 42)], ET_IPV4, &tcp4()),
    );
    is_tcp4(&d, 18);
    assert_eq!(d.vlan, 42);
    // Priority and DEI bits are not part of the id.
    let d = ok(
        LinkType::ETHERNET,
        &eth_tagged(&[(0x8100, 0xf00a)], ET_IPV4, &tcp4()),
    );
    assert_eq!(d.vlan, 10);
    // QinQ: S-tag (88a8 or the old 9100), then C-tag.
    for s in [0x88a8, 0x9100] {
        let d = ok(
            LinkType::ETHERNET,
            &eth_tagged(&[(s, 100), (0x8100, 200)], ET_IPV6, &udp6()),
        );
        is_udp6(&d, 22);
        assert_eq!(d.vlan, 200);
    }
    let tags: Vec<(u16, u16)> = (1..=8).map(|v| (0x8100, v)).collect();
    let d = ok(LinkType::ETHERNET, &eth_tagged(&tags, ET_IPV4, &tcp4()));
    assert_eq!((d.vlan, d.l3_offset), (8, 14 + 32));
    let tags: Vec<(u16, u16)> = (1..=9).map(|v| (0x8100, v)).collect();
    assert_eq!(
        err(LinkType::ETHERNET, &eth_tagged(&tags, ET_IPV4, &tcp4())),
        DropReason::TooManyLabels
    );
    // A tag cut short; a tagged ARP.
    assert_eq!(
        err(LinkType::ETHERNET, &eth(0x8100, &[0, 5, 8])),
        DropReason::TruncatedLink
    );
    assert_eq!(
        err(
            LinkType::ETHERNET,
            &eth_tagged(&[(0x8100, 5)], 0x0806, &[0; 28])
        ),
        DropReason::NotIp
    );
}

#[test]
fn mpls_label_stacks() {
    is_tcp4(&ok(LinkType::ETHERNET, &eth(0x8847, &mpls(1, &tcp4()))), 18);
    is_udp6(&ok(LinkType::ETHERNET, &eth(0x8848, &mpls(3, &udp6()))), 26);
    let d = ok(LinkType::ETHERNET, &eth(0x8847, &mpls(16, &tcp4())));
    assert_eq!(d.l3_offset, 14 + 64);
    assert_eq!(
        err(LinkType::ETHERNET, &eth(0x8847, &mpls(17, &tcp4()))),
        DropReason::TooManyLabels
    );
    // Bottom of stack never comes.
    assert_eq!(
        err(LinkType::ETHERNET, &eth(0x8847, &[0, 0, 0, 64, 0, 0])),
        DropReason::TruncatedLink
    );
    assert_eq!(
        err(LinkType::ETHERNET, &eth(0x8847, &mpls(1, &[]))),
        DropReason::TruncatedLink
    );
    // Not IP after the stack (first nibble 1).
    assert_eq!(
        err(LinkType::ETHERNET, &eth(0x8847, &mpls(1, &[0x10; 40]))),
        DropReason::NotIp
    );
}

#[test]
fn mpls_ethernet_pseudowire() {
    let inner = eth_tagged(&[(0x8100, 77)], ET_IPV4, &tcp4());
    let pw = [&[0, 0, 0, 0][..], &inner].concat();
    let d = ok(
        LinkType::ETHERNET,
        &eth_tagged(&[(0x8100, 3)], 0x8847, &mpls(2, &pw)),
    );
    is_tcp4(&d, 14 + 4 + 8 + 4 + 18);
    assert_eq!(d.vlan, 77);
    // Pseudowires nested without end are cut at the cap.
    let mut f = eth(ET_IPV4, &tcp4());
    for _ in 0..10 {
        f = eth(0x8847, &mpls(1, &[&[0, 0, 0, 0][..], &f].concat()));
    }
    assert_eq!(err(LinkType::ETHERNET, &f), DropReason::TooManyLabels);
}

#[test]
fn pppoe_session_and_discovery() {
    is_tcp4(
        &ok(LinkType::ETHERNET, &eth(0x8864, &pppoe(0x0021, &tcp4()))),
        22,
    );
    is_udp6(
        &ok(LinkType::ETHERNET, &eth(0x8864, &pppoe(0x0057, &udp6()))),
        22,
    );
    let d = ok(
        LinkType::ETHERNET,
        &eth_tagged(&[(0x8100, 9)], 0x8864, &pppoe(0x0021, &tcp4())),
    );
    assert_eq!((d.vlan, d.l3_offset), (9, 26));
    assert_eq!(
        err(
            LinkType::ETHERNET,
            &eth(0x8864, &pppoe(0xc021, &[1, 1, 0, 4]))
        ),
        DropReason::NotIp
    );
    assert_eq!(
        err(LinkType::ETHERNET, &eth(0x8863, &[0x11, 0x09, 0, 0, 0, 0])),
        DropReason::NotIp
    );
    assert_eq!(
        err(LinkType::ETHERNET, &eth(0x8864, &[0x11, 0, 0, 1, 0, 2, 0])),
        DropReason::TruncatedLink
    );
}

// ---------------------------------------------------------------- IPv4

#[test]
fn ipv4_options_are_skipped() {
    let h = V4 {
        options: vec![0x94, 0x04, 0, 0, 1, 1, 1, 0],
        ..V4::new(6)
    };
    let d = ok(LinkType::RAW, &h.build(&tcp(1234, 80, PAYLOAD)));
    assert_eq!(
        (d.src_port, d.dst_port, d.ip_len),
        (1234, 80, 28 + 20 + PAYLOAD.len() as u16)
    );
    assert_eq!(d.payload, PAYLOAD);
}

#[test]
fn ipv4_header_errors() {
    let mut p = tcp4();
    p[0] = 0x44; // IHL 4
    assert_eq!(err(LinkType::RAW, &p), DropReason::MalformedIpv4);
    let mut p = tcp4();
    p[0] = 0x65; // version 6 behind ethertype IPv4
    assert_eq!(
        err(LinkType::ETHERNET, &eth(ET_IPV4, &p)),
        DropReason::MalformedIpv4
    );
    let p = V4 {
        total_len: Some(19),
        ..V4::new(6)
    }
    .build(&tcp(1, 2, &[]));
    assert_eq!(err(LinkType::RAW, &p), DropReason::MalformedIpv4);
    // IHL 15 (60 bytes) but only 40 captured.
    let mut p = tcp4();
    p[0] = 0x4f;
    assert_eq!(err(LinkType::RAW, &p[..40]), DropReason::TruncatedIpv4);
    assert_eq!(err(LinkType::RAW, &tcp4()[..19]), DropReason::TruncatedIpv4);
}

#[test]
fn ipv4_lengths() {
    // Zero total length (segmentation offload): what was captured.
    let p = V4 {
        total_len: Some(0),
        ..V4::new(6)
    }
    .build(&tcp(1234, 80, PAYLOAD));
    let d = ok(LinkType::RAW, &p);
    assert_eq!((d.ip_len as usize, d.payload), (p.len(), PAYLOAD));
    // Ethernet padding is cut.
    let mut f = eth(ET_IPV4, &ipv4(17, &udp(1, 2, b"ab")));
    f.resize(60, 0);
    assert_eq!(ok(LinkType::ETHERNET, &f).payload, b"ab");
    // Snap length: the payload is what was captured; a cut header is an error.
    let f = eth(ET_IPV4, &tcp4());
    let d = ok(LinkType::ETHERNET, &f[..f.len() - 5]);
    assert_eq!(d.payload, &PAYLOAD[..PAYLOAD.len() - 5]);
    assert_eq!(d.ip_len as usize, 40 + PAYLOAD.len());
    assert_eq!(
        err(LinkType::ETHERNET, &f[..14 + 20 + 19]),
        DropReason::TruncatedL4
    );
}

#[test]
fn ipv4_fragments() {
    let seg = tcp(1234, 80, PAYLOAD);
    let first = V4 {
        frag: 0x2000,
        ..V4::new(6)
    }
    .build(&seg);
    let d = ok(LinkType::RAW, &first);
    assert_eq!((d.src_port, d.dst_port), (1234, 80));
    assert!(d.tcp.is_some());
    assert_eq!(
        d.frag,
        Some(Fragment {
            id: 0x4242,
            offset: 0,
            more: true
        })
    );
    // A middle fragment at 1480 bytes: no transport header.
    let data = [0x5au8; 24];
    let middle = V4 {
        frag: 0x2000 | 185,
        ..V4::new(6)
    }
    .build(&data);
    let d = ok(LinkType::RAW, &middle);
    assert_eq!((d.proto, d.src_port, d.dst_port, d.tcp), (6, 0, 0, None));
    assert_eq!(
        d.frag,
        Some(Fragment {
            id: 0x4242,
            offset: 1480,
            more: true
        })
    );
    assert_eq!(d.payload, &data);
    let last = V4 {
        frag: 370,
        ..V4::new(17)
    }
    .build(&[1, 2, 3]);
    let d = ok(LinkType::RAW, &last);
    assert_eq!(d.frag.map(|f| (f.offset, f.more)), Some((2960, false)));
    assert_eq!(d.payload, &[1, 2, 3]);
    // DF alone is not a fragment.
    assert_eq!(ok(LinkType::RAW, &tcp4()).frag, None);
}

// ---------------------------------------------------------------- IPv6

#[test]
fn ipv6_extension_headers() {
    let u = udp(5353, 53, PAYLOAD);
    // Hop-by-hop -> routing -> destination options -> UDP.
    let chain = ext6(43, 0, &ext6(60, 2, &ext6(17, 1, &u)));
    let d = ok(LinkType::IPV6, &ipv6(0, &chain));
    assert_eq!((d.proto, d.src_port, d.dst_port), (17, 5353, 53));
    assert_eq!(d.payload, PAYLOAD);
    assert_eq!(d.ip_len as usize, 40 + chain.len());
    // AH: (len + 2) * 4 bytes.
    let d = ok(
        LinkType::IPV6,
        &ipv6(51, &ah(6, 4, &tcp(1234, 80, PAYLOAD))),
    );
    assert_eq!((d.proto, d.src_port, d.payload), (6, 1234, PAYLOAD));
    // No next header, ESP, mobility: transports without ports.
    for (next, body) in [
        (59u8, vec![]),
        (50, vec![0, 0, 1, 0, 0, 0, 0, 1, 9, 9]),
        (135, vec![59, 1, 5, 0, 0, 0, 0, 0]),
    ] {
        let d = ok(LinkType::IPV6, &ipv6(next, &body));
        assert_eq!((d.proto, d.src_port, d.dst_port), (next, 0, 0));
        assert_eq!(d.payload, &body[..]);
    }
    let d = ok(LinkType::IPV6, &ipv6(60, &ext6(59, 0, &[])));
    assert_eq!(d.proto, 59);
}

#[test]
fn ipv6_extension_header_limits() {
    let mut body = udp(1, 2, &[]);
    let mut next = 17;
    for _ in 0..8 {
        body = ext6(next, 0, &body);
        next = 60;
    }
    assert_eq!(ok(LinkType::IPV6, &ipv6(60, &body)).src_port, 1);
    let body = ext6(60, 0, &body);
    assert_eq!(
        err(LinkType::IPV6, &ipv6(60, &body)),
        DropReason::MalformedIpv6
    );
    // An extension header cut short, or longer than the packet.
    let p = ipv6(0, &ext6(17, 1, &udp(1, 2, &[])));
    assert_eq!(err(LinkType::IPV6, &p[..41]), DropReason::TruncatedIpv6);
    assert_eq!(err(LinkType::IPV6, &p[..50]), DropReason::TruncatedIpv6);
    assert_eq!(
        err(LinkType::IPV6, &ipv6(44, &[17, 0, 0])),
        DropReason::TruncatedIpv6
    );
}

#[test]
fn ipv6_header_errors_and_lengths() {
    let mut p = udp6();
    p[0] = 0x40;
    assert_eq!(
        err(LinkType::ETHERNET, &eth(ET_IPV6, &p)),
        DropReason::MalformedIpv6
    );
    assert_eq!(
        err(LinkType::IPV6, &udp6()[..39]),
        DropReason::TruncatedIpv6
    );
    // Payload length 0 (jumbogram / offload): what was captured.
    let mut p = udp6();
    p[4..6].copy_from_slice(&[0, 0]);
    let d = ok(LinkType::IPV6, &p);
    assert_eq!((d.ip_len as usize, d.payload), (p.len(), PAYLOAD));
    // Padding after the packet is cut.
    let mut f = eth(ET_IPV6, &udp6());
    f.extend_from_slice(&[0; 10]);
    assert_eq!(ok(LinkType::ETHERNET, &f).payload, PAYLOAD);
}

#[test]
fn ipv6_fragments() {
    let seg = tcp(1234, 80, PAYLOAD);
    let d = ok(
        LinkType::IPV6,
        &ipv6(44, &frag6(6, 0, true, 0xdead_beef, &seg)),
    );
    assert_eq!((d.proto, d.src_port, d.dst_port), (6, 1234, 80));
    assert_eq!(
        d.frag,
        Some(Fragment {
            id: 0xdead_beef,
            offset: 0,
            more: true
        })
    );
    // Later fragment behind a hop-by-hop header: data, not a TCP header.
    let p = ipv6(0, &ext6(44, 0, &frag6(6, 1232, false, 7, &seg)));
    let d = ok(LinkType::IPV6, &p);
    assert_eq!((d.proto, d.src_port, d.dst_port, d.tcp), (6, 0, 0, None));
    assert_eq!(
        d.frag,
        Some(Fragment {
            id: 7,
            offset: 1232,
            more: false
        })
    );
    assert_eq!(d.payload, &seg[..]);
    // An atomic fragment (offset 0, no more) is a whole packet.
    let d = ok(LinkType::IPV6, &ipv6(44, &frag6(6, 0, false, 9, &seg)));
    assert_eq!((d.frag, d.src_port), (None, 1234));
}

// ---------------------------------------------------------------- transports

#[test]
fn tcp_header() {
    let opts = [2, 4, 5, 0xb4, 1, 1, 4, 2, 1, 3, 3, 7];
    let d = ok(
        LinkType::RAW,
        &ipv4(6, &tcp_with(443, 50000, 0x12, &opts, PAYLOAD)),
    );
    assert_eq!((d.src_port, d.dst_port, d.payload), (443, 50000, PAYLOAD));
    assert_eq!(d.tcp.map(|t| t.flags), Some(0x12));
    // Options cut by the snap length: the header is there, the payload is empty.
    let p = ipv4(6, &tcp_with(443, 50000, 0x12, &opts, &[]));
    let d = ok(LinkType::RAW, &p[..20 + 24]);
    assert_eq!((d.src_port, d.payload), (443, &[][..]));
    // Data offset below 5.
    let mut t = tcp(1, 2, &[]);
    t[12] = 0x40;
    assert_eq!(err(LinkType::RAW, &ipv4(6, &t)), DropReason::MalformedL4);
    assert_eq!(
        err(LinkType::RAW, &ipv4(6, &tcp(1, 2, &[])[..19])),
        DropReason::TruncatedL4
    );
}

#[test]
fn udp_icmp_sctp_and_others() {
    let d = ok(LinkType::RAW, &ipv4(17, &udp(53, 5353, PAYLOAD)));
    assert_eq!(
        (d.proto, d.src_port, d.dst_port, d.payload),
        (17, 53, 5353, PAYLOAD)
    );
    assert_eq!(
        err(LinkType::RAW, &ipv4(17, &[0; 7])),
        DropReason::TruncatedL4
    );

    let d = ok(LinkType::RAW, &ipv4(1, &icmp(8, 0, b"ping")));
    assert_eq!(
        (d.proto, d.src_port, d.dst_port, d.icmp, d.payload),
        (1, 0, 0, Some((8, 0)), &b"ping"[..])
    );
    let d = ok(LinkType::RAW, &ipv6(58, &icmp(135, 0, &[0; 20])));
    assert_eq!((d.proto, d.icmp, d.payload.len()), (58, Some((135, 0)), 20));
    // Type and code are enough.
    assert_eq!(ok(LinkType::RAW, &ipv4(1, &[3, 1])).icmp, Some((3, 1)));
    assert_eq!(err(LinkType::RAW, &ipv4(1, &[3])), DropReason::TruncatedL4);

    let d = ok(LinkType::RAW, &ipv6(132, &sctp(2905, 2906, b"chunk")));
    assert_eq!(
        (d.proto, d.src_port, d.dst_port, d.payload),
        (132, 2905, 2906, &b"chunk"[..])
    );
    assert_eq!(
        err(LinkType::RAW, &ipv4(132, &[0; 11])),
        DropReason::TruncatedL4
    );

    // OSPF: ports 0, the whole IP payload.
    let d = ok(LinkType::RAW, &ipv4(89, b"hello"));
    assert_eq!(
        (d.proto, d.src_port, d.dst_port, d.payload),
        (89, 0, 0, &b"hello"[..])
    );
}

// ---------------------------------------------------------------- tunnels

fn outer4(proto: u8, body: &[u8]) -> Vec<u8> {
    let h = V4 {
        src: [10, 0, 0, 1],
        dst: [10, 0, 0, 2],
        ttl: 250,
        ..V4::new(proto)
    };
    eth_tagged(&[(0x8100, 5)], ET_IPV4, &h.build(body))
}

fn is_outer4(d: &Decoded<'_>, proto: u8) {
    assert_eq!(
        (d.src, d.dst, d.proto),
        (a4([10, 0, 0, 1]), a4([10, 0, 0, 2]), proto)
    );
    assert_eq!(
        (d.ttl, d.l3_offset, d.vlan, d.tunnel),
        (250, 18, 5, Tunnel::None)
    );
}

#[test]
fn ip_in_ip_all_four() {
    let d = ok(LinkType::ETHERNET, &outer4(4, &tcp4()));
    is_tcp4(&d, 38);
    assert_eq!((d.tunnel, d.vlan), (Tunnel::IpInIp, 5));
    let d = ok(LinkType::ETHERNET, &outer4(41, &udp6()));
    is_udp6(&d, 38);
    assert_eq!(d.tunnel, Tunnel::IpInIp);
    let d = ok(LinkType::RAW, &ipv6_addrs(DST6, SRC6, 4, &tcp4()));
    is_tcp4(&d, 40);
    let d = ok(LinkType::RAW, &ipv6_addrs(DST6, SRC6, 41, &udp6()));
    is_udp6(&d, 40);
    assert_eq!(d.tunnel, Tunnel::IpInIp);
    // Off: the outer packet.
    let f = outer4(4, &tcp4());
    let d = decode(LinkType::ETHERNET, &f, &OFF).unwrap();
    is_outer4(&d, 4);
    assert_eq!(d.payload, &tcp4()[..]);
    // An inner packet that does not decode: the outer packet.
    let d = ok(LinkType::ETHERNET, &outer4(4, &[0x45, 0, 0]));
    is_outer4(&d, 4);
}

#[test]
fn gre_version_0() {
    for flags in [0x0000u16, 0x8000, 0x2000, 0x1000, 0xb000] {
        let d = ok(
            LinkType::ETHERNET,
            &outer4(47, &gre(flags, ET_IPV4, &tcp4())),
        );
        let opt = 4 * (flags.count_ones() as u16);
        is_tcp4(&d, 18 + 20 + 4 + opt);
        assert_eq!((d.tunnel, d.vlan), (Tunnel::Gre, 5));
    }
    is_udp6(
        &ok(
            LinkType::ETHERNET,
            &outer4(47, &gre(0x2000, ET_IPV6, &udp6())),
        ),
        18 + 28,
    );
    // Unknown protocol, source routing, version 2: the GRE packet is the flow.
    for (flags, proto) in [(0u16, 0x9999u16), (0x4000, ET_IPV4), (0x0002, ET_IPV4)] {
        let d = ok(LinkType::ETHERNET, &outer4(47, &gre(flags, proto, &tcp4())));
        is_outer4(&d, 47);
        assert_eq!((d.src_port, d.dst_port), (0, 0));
    }
    // Inner packet broken: the outer flow.
    is_outer4(
        &ok(
            LinkType::ETHERNET,
            &outer4(47, &gre(0, ET_IPV4, &[0x45; 10])),
        ),
        47,
    );
    // The GRE header itself cut short.
    assert_eq!(
        err(LinkType::ETHERNET, &outer4(47, &[0x20, 0])),
        DropReason::MalformedTunnel
    );
    assert_eq!(
        err(
            LinkType::ETHERNET,
            &outer4(47, &[0xb0, 0, 8, 0, 0, 0, 0, 0])
        ),
        DropReason::MalformedTunnel
    );
    // Off: GRE is a transport like any other.
    let f = outer4(47, &[0x20, 0]);
    is_outer4(&decode(LinkType::ETHERNET, &f, &OFF).unwrap(), 47);
}

#[test]
fn gre_transparent_ethernet_and_erspan() {
    // Inner Ethernet with a tag: its VLAN replaces the outer one.
    let inner = eth_tagged(&[(0x8100, 300)], ET_IPV4, &tcp4());
    let d = ok(
        LinkType::ETHERNET,
        &outer4(47, &gre(0x2000, 0x6558, &inner)),
    );
    is_tcp4(&d, 18 + 20 + 8 + 18);
    assert_eq!((d.tunnel, d.vlan), (Tunnel::Gre, 300));
    // Untagged inner Ethernet keeps the outer VLAN.
    let inner = eth(ET_IPV4, &tcp4());
    let d = ok(LinkType::ETHERNET, &outer4(47, &gre(0, 0x6558, &inner)));
    assert_eq!((d.vlan, d.l3_offset), (5, 18 + 20 + 4 + 14));
    // ERSPAN type II (sequence number, 8-byte header), type I (neither), type III (12 bytes).
    let e2 = [&[0x10, 0x2a, 0, 1, 0, 0, 0, 0][..], &inner].concat();
    let d = ok(LinkType::ETHERNET, &outer4(47, &gre(0x1000, 0x88be, &e2)));
    assert_eq!((d.tunnel, d.l3_offset), (Tunnel::Gre, 18 + 20 + 8 + 8 + 14));
    is_tcp4(
        &ok(LinkType::ETHERNET, &outer4(47, &gre(0, 0x88be, &inner))),
        18 + 20 + 4 + 14,
    );
    let e3 = [&[0x20, 0x2a, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0][..], &inner].concat();
    is_tcp4(
        &ok(LinkType::ETHERNET, &outer4(47, &gre(0x1000, 0x22eb, &e3))),
        18 + 20 + 8 + 12 + 14,
    );
    let e3o = [
        &[0x20, 0x2a, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1][..],
        &[0; 8],
        &inner,
    ]
    .concat();
    is_tcp4(
        &ok(LinkType::ETHERNET, &outer4(47, &gre(0x1000, 0x22eb, &e3o))),
        18 + 20 + 8 + 20 + 14,
    );
}

#[test]
fn gre_version_1_pptp() {
    // Key (always), sequence, acknowledgment; PPP with address/control and a 2-byte protocol.
    let ppp = [&[0xff, 0x03, 0x00, 0x21][..], &tcp4()].concat();
    let d = ok(LinkType::ETHERNET, &outer4(47, &gre(0x3081, 0x880b, &ppp)));
    is_tcp4(&d, 18 + 20 + 16 + 4);
    assert_eq!(d.tunnel, Tunnel::Gre);
    // Compressed PPP (ACFC + PFC), key only.
    let ppp = [&[0x21][..], &tcp4()].concat();
    is_tcp4(
        &ok(LinkType::ETHERNET, &outer4(47, &gre(0x2001, 0x880b, &ppp))),
        18 + 20 + 8 + 1,
    );
    // An acknowledgment with no payload: the GRE flow.
    is_outer4(
        &ok(LinkType::ETHERNET, &outer4(47, &gre(0x2081, 0x880b, &[]))),
        47,
    );
}

#[test]
fn vxlan_tunnel() {
    let inner = eth_tagged(&[(0x8100, 12)], ET_IPV4, &tcp4());
    let f = outer4(17, &udp(40000, 4789, &vxlan(&inner)));
    let d = ok(LinkType::ETHERNET, &f);
    is_tcp4(&d, 18 + 20 + 8 + 8 + 18);
    assert_eq!((d.tunnel, d.vlan), (Tunnel::Vxlan, 12));
    // Untagged inner frame: the outer VLAN stays.
    let f = outer4(17, &udp(40000, 4789, &vxlan(&eth(ET_IPV6, &udp6()))));
    let d = ok(LinkType::ETHERNET, &f);
    is_udp6(&d, 18 + 20 + 8 + 8 + 14);
    assert_eq!((d.tunnel, d.vlan), (Tunnel::Vxlan, 5));
    // No I flag, an inner frame cut inside its IPv4 header, or 4789 as the source port only:
    // the outer UDP flow.
    let mut v = vxlan(&inner);
    v[0] = 0;
    let cut = vxlan(&eth(ET_IPV4, &tcp4()[..12]));
    for u in [
        udp(40000, 4789, &v),
        udp(40000, 4789, &cut),
        udp(4789, 40000, &vxlan(&inner)),
    ] {
        let d = ok(LinkType::ETHERNET, &outer4(17, &u));
        is_outer4(&d, 17);
        assert_eq!(d.payload, &u[8..]);
    }
    let d = decode(LinkType::ETHERNET, &f, &OFF).unwrap();
    is_outer4(&d, 17);
    assert_eq!(d.dst_port, 4789);
}

#[test]
fn gtp_u() {
    let plain = gtpu(None, &[], &tcp4());
    let d = ok(LinkType::ETHERNET, &outer4(17, &udp(2152, 2152, &plain)));
    is_tcp4(&d, 18 + 20 + 8 + 8);
    assert_eq!((d.tunnel, d.vlan), (Tunnel::GtpU, 5));
    // Sequence number; and a PDU session container extension (type 0x85) then another.
    let seq = gtpu(Some(7), &[], &udp6());
    is_udp6(
        &ok(LinkType::ETHERNET, &outer4(17, &udp(30000, 2152, &seq))),
        18 + 20 + 8 + 12,
    );
    let ext = gtpu(
        None,
        &[(0x85, vec![0x10, 0x09]), (0x40, vec![1, 2, 3, 4, 5])],
        &tcp4(),
    );
    is_tcp4(
        &ok(LinkType::ETHERNET, &outer4(17, &udp(2152, 40000, &ext))),
        18 + 20 + 8 + 12 + 4 + 8,
    );
    // Nine extensions is past the cap; a zero-length extension; an echo request; GTPv2;
    // a non-IP payload: the outer UDP flow.
    let nine: Vec<(u8, Vec<u8>)> = (0..9).map(|_| (0x40, vec![0, 0])).collect();
    let mut zero = gtpu(None, &[(0x85, vec![0, 0])], &tcp4());
    zero[12] = 0;
    let mut echo = plain.clone();
    echo[1] = 1;
    let mut v2 = plain.clone();
    v2[0] = 0x48;
    for g in [
        gtpu(None, &nine, &tcp4()),
        zero,
        echo,
        v2,
        gtpu(None, &[], &[0x10; 30]),
    ] {
        is_outer4(
            &ok(LinkType::ETHERNET, &outer4(17, &udp(2152, 2152, &g))),
            17,
        );
    }
}

/// A CAPWAP data header (RFC 5415 §4.3) of `words` 4-byte words (optional fields zero-filled):
/// WBID 1 (802.11) with the T flag when `native`, `flags` as the fourth byte (F 0x80, W 0x20,
/// K 0x08), then `body`.
fn capwap(words: u8, native: bool, flags: u8, body: &[u8]) -> Vec<u8> {
    let mut v = vec![0, words << 3, if native { 0x03 } else { 0x00 }, flags];
    v.resize(usize::from(words) * 4, 0);
    v.extend_from_slice(body);
    v
}

/// An 802.11 data frame (IEEE 802.11-2020 §9.3.2.1) to the DS: frame control `fc` (its two bytes
/// swapped when `swap`), duration, three addresses and sequence control, a QoS control field for
/// QoS subtypes, then LLC/SNAP and `ip`.
fn wifi(fc: [u8; 2], swap: bool, ip: &[u8]) -> Vec<u8> {
    let mut v = if swap {
        vec![fc[1], fc[0]]
    } else {
        fc.to_vec()
    };
    v.extend_from_slice(&[0; 22]);
    if fc[0] & 0x80 != 0 {
        v.extend_from_slice(&[0, 0]);
    }
    v.extend_from_slice(&[0xaa, 0xaa, 0x03, 0, 0, 0, 0x08, 0x00]);
    v.extend_from_slice(ip);
    v
}

#[test]
fn capwap_data() {
    let data = [0x08, 0x01];
    let qos = [0x88, 0x01];
    // 802.3 payload (T clear); a QoS data frame behind a 16-byte header (W: wireless info); a
    // data frame whose frame-control bytes come swapped, from the controller's port.
    let d = ok(
        LinkType::ETHERNET,
        &outer4(
            17,
            &udp(12380, 5247, &capwap(2, false, 0, &eth(ET_IPV4, &tcp4()))),
        ),
    );
    is_tcp4(&d, 18 + 20 + 8 + 8 + 14);
    assert_eq!((d.tunnel, d.vlan), (Tunnel::Capwap, 5));
    let d = ok(
        LinkType::ETHERNET,
        &outer4(
            17,
            &udp(
                12380,
                5247,
                &capwap(4, true, 0x20, &wifi(qos, false, &tcp4())),
            ),
        ),
    );
    is_tcp4(&d, 18 + 20 + 8 + 16 + 26 + 8);
    let d = ok(
        LinkType::ETHERNET,
        &outer4(
            17,
            &udp(
                5247,
                12380,
                &capwap(4, true, 0x20, &wifi(data, true, &tcp4())),
            ),
        ),
    );
    is_tcp4(&d, 18 + 20 + 8 + 16 + 24 + 8);
    assert_eq!(d.tunnel, Tunnel::Capwap);
    // The outer flow stands: a keep-alive, a fragment, DTLS (preamble type 1), a header shorter
    // than its fixed part, a management frame, a Null data frame, a body that is not SNAP, and
    // any of them on another port.
    let mut dtls = capwap(2, false, 0, &eth(ET_IPV4, &tcp4()));
    dtls[0] = 0x01;
    let mut not_snap = wifi(data, false, &tcp4());
    not_snap[24] = 0xab;
    for c in [
        capwap(2, false, 0x08, &eth(ET_IPV4, &tcp4())),
        capwap(2, false, 0x80, &eth(ET_IPV4, &tcp4())),
        dtls,
        capwap(1, false, 0, &eth(ET_IPV4, &tcp4())),
        capwap(2, true, 0, &wifi([0x80, 0x00], false, &tcp4())),
        capwap(2, true, 0, &wifi([0x48, 0x01], false, &tcp4())),
        capwap(2, true, 0, &not_snap),
    ] {
        is_outer4(
            &ok(LinkType::ETHERNET, &outer4(17, &udp(12380, 5247, &c))),
            17,
        );
    }
    let c = capwap(2, false, 0, &eth(ET_IPV4, &tcp4()));
    is_outer4(
        &ok(LinkType::ETHERNET, &outer4(17, &udp(12380, 5246, &c))),
        17,
    );
}

/// capwap_data.pcapng, frame 1: an access point's 802.11 frame (frame control sent swapped) in
/// CAPWAP data over UDP over two VLAN tags. tshark dissects the inner packet as TCP
/// 10.1.3.68:47025 -> 74.125.130.188:443, a SYN; nDPI's flows.csv keys the flow so, VLAN 3.
#[test]
fn capwap_data_from_the_corpus() {
    let f = unhex(
        "000000000008a4c64f3bb3ab8100805e8100800308004500008854394000fe1106f6ac32649bac106457\
         a130147f00740000002003200000000004bf2300000000001108 2c0084802d2b459054f201e1b29910f3\
         11eaeec17630aaaa030000000800450000 3c212240004006 3f1c0a0103444a7d82bcb7b101bb0b21616e\
         00000000a002ffff071800000204 05b40402080a0021404c0000000001030308",
    );
    let d = ok(LinkType::ETHERNET, &f);
    assert_eq!((d.tunnel, d.vlan, d.proto), (Tunnel::Capwap, 3, 6));
    assert_eq!(
        (d.src, d.dst),
        (a4([10, 1, 3, 68]), a4([74, 125, 130, 188]))
    );
    assert_eq!((d.src_port, d.dst_port), (47025, 443));
    assert_eq!(d.tcp.map(|t| t.flags), Some(0x02));
}

#[test]
fn nested_tunnels_report_the_outermost_and_stop_at_the_cap() {
    // GRE carrying VXLAN carrying the flow.
    let vx = ipv4_addrs(
        [172, 16, 0, 1],
        [172, 16, 0, 2],
        17,
        &udp(1, 4789, &vxlan(&eth(ET_IPV4, &tcp4()))),
    );
    let d = ok(LinkType::ETHERNET, &outer4(47, &gre(0, ET_IPV4, &vx)));
    is_tcp4(&d, 18 + 20 + 4 + 20 + 8 + 8 + 14);
    assert_eq!(d.tunnel, Tunnel::Gre);
    // Four IP-in-IP levels are removed; the fifth stays as the flow.
    let mut p = tcp4();
    for _ in 0..4 {
        p = ipv4_addrs([10, 9, 9, 9], [10, 8, 8, 8], 4, &p);
    }
    is_tcp4(&ok(LinkType::RAW, &p), 80);
    let p = ipv4_addrs([10, 7, 7, 7], [10, 6, 6, 6], 4, &p);
    let d = ok(LinkType::RAW, &p);
    assert_eq!(
        (d.src, d.proto, d.l3_offset, d.tunnel),
        (a4([10, 9, 9, 9]), 4, 80, Tunnel::IpInIp)
    );
    assert_eq!(d.payload, &tcp4()[..]);
}

#[test]
fn fragmented_tunnels_are_not_opened() {
    let h = V4 {
        frag: 0x2000,
        ..V4::new(47)
    };
    let d = ok(LinkType::RAW, &h.build(&gre(0, ET_IPV4, &tcp4())));
    assert_eq!(
        (d.proto, d.tunnel, d.frag.map(|f| f.more)),
        (47, Tunnel::None, Some(true))
    );
    let h = V4 {
        frag: 0x2000,
        ..V4::new(17)
    };
    let d = ok(
        LinkType::RAW,
        &h.build(&udp(1, 4789, &vxlan(&eth(ET_IPV4, &tcp4())))),
    );
    assert_eq!((d.proto, d.dst_port, d.tunnel), (17, 4789, Tunnel::None));
}

// ---------------------------------------------------------------- more encapsulations

/// `body` in UDP from `sport` to `dport`, in the outer IPv4 packet of `outer4`.
fn over_udp4(sport: u16, dport: u16, body: &[u8]) -> Vec<u8> {
    outer4(17, &udp(sport, dport, body))
}

/// The outer UDP datagram stands as the flow, with its ports and its whole payload.
fn is_outer_udp(d: &Decoded<'_>, sport: u16, dport: u16, body: &[u8]) {
    is_outer4(d, 17);
    assert_eq!((d.src_port, d.dst_port, d.payload), (sport, dport, body));
}

#[test]
fn geneve() {
    // RFC 8926: an Ethernet frame (protocol type 0x6558) behind 12 bytes of options.
    let opts = [
        geneve_opt(0x0103, 0x80, &[1, 2, 3, 4]),
        geneve_opt(0xffff, 0x01, &[]),
    ]
    .concat();
    let inner = eth_tagged(&[(0x8100, 33)], ET_IPV4, &tcp4());
    let d = ok(
        LinkType::ETHERNET,
        &over_udp4(50000, 6081, &common::geneve(&opts, 0x6558, &inner)),
    );
    is_tcp4(&d, 18 + 20 + 8 + 8 + 12 + 18);
    assert_eq!(
        (d.tunnel, d.tunnel.as_str(), d.vlan),
        (Tunnel::Geneve, "Geneve", 33)
    );
    // IPv4 directly, no options.
    let d = ok(
        LinkType::ETHERNET,
        &over_udp4(50000, 6081, &common::geneve(&[], ET_IPV4, &tcp4())),
    );
    is_tcp4(&d, 18 + 20 + 8 + 8);
    assert_eq!((d.tunnel, d.vlan), (Tunnel::Geneve, 5));
    // IPv6 directly over an IPv6 outer header, with the most options (63 words).
    let g = common::geneve(&[0; 252], ET_IPV6, &udp6());
    let o = ipv6_addrs(DST6, SRC6, 17, &udp(50000, 6081, &g));
    let d = ok(LinkType::ETHERNET, &eth(ET_IPV6, &o));
    is_udp6(&d, 14 + 40 + 8 + 8 + 252);
    assert_eq!(d.tunnel, Tunnel::Geneve);
    // The outer datagram stands: version 1, a protocol type that is not IP (LLDP), options
    // past the datagram, a header cut short, 6081 as the source port only, a broken inner
    // packet.
    let mut v1 = common::geneve(&[], ET_IPV4, &tcp4());
    v1[0] |= 0x40;
    let mut long = common::geneve(&[], ET_IPV4, &tcp4());
    long[0] = 0x3f;
    let whole = common::geneve(&[], ET_IPV4, &tcp4());
    for (sport, dport, g) in [
        (50000, 6081, v1),
        (50000, 6081, common::geneve(&[], 0x88cc, &[0; 20])),
        (50000, 6081, long),
        (50000, 6081, whole[..6].to_vec()),
        (6081, 50000, whole.clone()),
        (50000, 6081, common::geneve(&[], ET_IPV4, &[0x45; 12])),
    ] {
        let u = udp(sport, dport, &g);
        is_outer_udp(
            &ok(LinkType::ETHERNET, &outer4(17, &u)),
            sport,
            dport,
            &u[8..],
        );
    }
}

#[test]
fn teredo() {
    // RFC 4380: IPv6 in UDP from the server port.
    let d = ok(LinkType::ETHERNET, &over_udp4(3544, 51812, &udp6()));
    is_udp6(&d, 18 + 20 + 8);
    assert_eq!(
        (d.tunnel, d.tunnel.as_str(), d.vlan),
        (Tunnel::Teredo, "Teredo", 5)
    );
    // To the server: authentication (3-byte client id, 2-byte value), then origin indication.
    let t = teredo_auth(
        b"cli",
        &[0xa1, 0xa2],
        &teredo_origin(51812, [10, 112, 16, 67], &udp6()),
    );
    let d = ok(LinkType::ETHERNET, &over_udp4(51812, 3544, &t));
    is_udp6(&d, 18 + 20 + 8 + (4 + 3 + 2 + 9) + 8);
    // Each alone; an empty identifier and value.
    let t = teredo_origin(1, [192, 0, 2, 9], &udp6());
    is_udp6(
        &ok(LinkType::ETHERNET, &over_udp4(3544, 1, &t)),
        18 + 20 + 8 + 8,
    );
    let t = teredo_auth(&[], &[], &udp6());
    is_udp6(
        &ok(LinkType::ETHERNET, &over_udp4(1, 3544, &t)),
        18 + 20 + 8 + 13,
    );
    // A bubble: no payload, next header 59 — an IPv6 flow with ports 0.
    let t = teredo_origin(1, [192, 0, 2, 9], &ipv6(59, &[]));
    let d = ok(LinkType::ETHERNET, &over_udp4(3544, 51812, &t));
    assert_eq!(
        (d.ip_version, d.proto, d.src, d.dst, d.tunnel),
        (6, 59, SRC6, DST6, Tunnel::Teredo)
    );
    assert_eq!((d.src_port, d.dst_port, d.payload), (0, 0, &[][..]));
    // Port 3544 traffic that is not Teredo stays the outer flow: not IPv6 (a DNS-like payload,
    // IPv4), a payload length short of the datagram or beyond it, an authentication header
    // cut short, an origin indication with nothing after it.
    let mut short = udp6();
    short[5] -= 1;
    let mut long = udp6();
    long[5] += 1;
    for body in [
        vec![0x12, 0x34, 0x01, 0x00, 0x00, 0x01, 0, 0, 0, 0, 0, 0],
        tcp4(),
        short,
        [udp6(), vec![0]].concat(),
        long,
        teredo_auth(b"cli", &[], &[])[..3].to_vec(),
        teredo_origin(1, [1, 2, 3, 4], &[]),
    ] {
        let u = udp(51812, 3544, &body);
        is_outer_udp(&ok(LinkType::ETHERNET, &outer4(17, &u)), 51812, 3544, &body);
    }
    // Cut by the snap length inside the IPv6 header: the outer flow, not a drop.
    let f = over_udp4(3544, 51812, &udp6());
    let d = ok(LinkType::ETHERNET, &f[..18 + 20 + 8 + 30]);
    is_outer4(&d, 17);
    assert_eq!(d.src_port, 3544);
}

#[test]
fn ayiya() {
    // draft-massar-v6ops-ayiya: IPv6 (next header 41) behind a 16-byte identity and a 20-byte
    // signature, from the port.
    let a = common::ayiya(4, 5, 1, 41, &udp6());
    let d = ok(LinkType::ETHERNET, &over_udp4(5072, 40000, &a));
    is_udp6(&d, 18 + 20 + 8 + 8 + 16 + 20);
    assert_eq!((d.tunnel, d.tunnel.as_str()), (Tunnel::Ayiya, "AYIYA"));
    // IPv4 (next header 4), a 1-byte identity and no signature, to the port.
    let a = common::ayiya(0, 0, 1, 4, &tcp4());
    is_tcp4(
        &ok(LinkType::ETHERNET, &over_udp4(40000, 5072, &a)),
        18 + 20 + 8 + 8 + 1,
    );
    // The outer datagram stands: a heartbeat (opcode 0), an echo request (2), next header 59
    // or UDP, a signature longer than the datagram, a header cut short.
    let mut long_sig = common::ayiya(4, 5, 1, 41, &udp6());
    long_sig[1] = 0xf2;
    for a in [
        common::ayiya(4, 5, 0, 59, &[]),
        common::ayiya(4, 5, 2, 41, &udp6()),
        common::ayiya(4, 5, 1, 59, &udp6()),
        common::ayiya(4, 5, 1, 17, &udp(1, 2, &[])),
        long_sig,
        common::ayiya(0, 0, 1, 4, &[])[..7].to_vec(),
    ] {
        let u = udp(40000, 5072, &a);
        is_outer_udp(&ok(LinkType::ETHERNET, &outer4(17, &u)), 40000, 5072, &a);
    }
}

#[test]
fn gre_in_udp() {
    // RFC 8086: IPv4 behind a GRE header with a key.
    let d = ok(
        LinkType::ETHERNET,
        &over_udp4(50000, 4754, &gre(0x2000, ET_IPV4, &tcp4())),
    );
    is_tcp4(&d, 18 + 20 + 8 + 8);
    assert_eq!(
        (d.tunnel, d.tunnel.as_str()),
        (Tunnel::GreInUdp, "GRE-in-UDP")
    );
    // Ethernet (0x6558) with a tag; MPLS with a sequence number.
    let inner = eth_tagged(&[(0x8100, 44)], ET_IPV6, &udp6());
    let d = ok(
        LinkType::ETHERNET,
        &over_udp4(50000, 4754, &gre(0, 0x6558, &inner)),
    );
    is_udp6(&d, 18 + 20 + 8 + 4 + 18);
    assert_eq!(d.vlan, 44);
    is_tcp4(
        &ok(
            LinkType::ETHERNET,
            &over_udp4(50000, 4754, &gre(0x1000, 0x8847, &mpls(2, &tcp4()))),
        ),
        18 + 20 + 8 + 8 + 8,
    );
    // The outer datagram stands: version 1 (PPTP is not GRE-in-UDP), a header cut short (over
    // IP that is a drop, over UDP a hint that it is not GRE), source routing, 4754 as the source
    // port only.
    let ppp = [&[0xff, 0x03, 0x00, 0x21][..], &tcp4()].concat();
    for (sport, dport, g) in [
        (50000, 4754, gre(0x3001, 0x880b, &ppp)),
        (50000, 4754, vec![0x20, 0x00]),
        (50000, 4754, vec![0xb0, 0, 8, 0, 0, 0, 0, 0]),
        (50000, 4754, gre(0x4000, ET_IPV4, &tcp4())),
        (4754, 50000, gre(0, ET_IPV4, &tcp4())),
    ] {
        let u = udp(sport, dport, &g);
        is_outer_udp(&ok(LinkType::ETHERNET, &outer4(17, &u)), sport, dport, &g);
    }
}

#[test]
fn provider_backbone_bridging_802_1ah() {
    // B-tag (802.1ad, B-VID 100), I-TAG, then the customer frame with its C-tag (VLAN 200).
    let cust = eth_tagged(&[(0x8100, 200)], ET_IPV4, &tcp4());
    let f = eth_tagged(&[(0x88a8, 100)], 0x88e7, &itag(0x01_e240, &cust));
    let d = ok(LinkType::ETHERNET, &f);
    is_tcp4(&d, 14 + 4 + 4 + 18);
    assert_eq!((d.vlan, d.tunnel), (200, Tunnel::None));
    // An untagged customer frame keeps the backbone VLAN; an I-TAG without a B-tag.
    let f = eth_tagged(&[(0x88a8, 100)], 0x88e7, &itag(7, &eth(ET_IPV6, &udp6())));
    let d = ok(LinkType::ETHERNET, &f);
    is_udp6(&d, 18 + 4 + 14);
    assert_eq!(d.vlan, 100);
    is_tcp4(
        &ok(
            LinkType::ETHERNET,
            &eth(0x88e7, &itag(7, &eth(ET_IPV4, &tcp4()))),
        ),
        14 + 4 + 14,
    );
    // A customer ARP; an I-TAG or customer header cut short.
    assert_eq!(
        err(
            LinkType::ETHERNET,
            &eth(0x88e7, &itag(7, &eth(0x0806, &[0; 28])))
        ),
        DropReason::NotIp
    );
    assert_eq!(
        err(LinkType::ETHERNET, &eth(0x88e7, &[0x60, 0, 0])),
        DropReason::TruncatedLink
    );
    assert_eq!(
        err(LinkType::ETHERNET, &eth(0x88e7, &itag(7, &DST_MAC))),
        DropReason::TruncatedLink
    );
    // Nested customer frames: four are followed, a fifth is past the cap.
    let mut f = eth(ET_IPV4, &tcp4());
    for _ in 0..4 {
        f = eth(0x88e7, &itag(1, &f));
    }
    is_tcp4(&ok(LinkType::ETHERNET, &f), 4 * 18 + 14);
    assert_eq!(
        err(LinkType::ETHERNET, &eth(0x88e7, &itag(1, &f))),
        DropReason::TooManyLabels
    );
}

#[test]
fn vn_tag() {
    let d = ok(
        LinkType::ETHERNET,
        &eth(0x8926, &vntag(0x12, 0x34, ET_IPV4, &tcp4())),
    );
    is_tcp4(&d, 20);
    assert_eq!(d.vlan, 0);
    // Then an 802.1Q tag (VLAN 42).
    let tagged = [&[0x00, 0x2a, 0x86, 0xdd][..], &udp6()].concat();
    let d = ok(
        LinkType::ETHERNET,
        &eth(0x8926, &vntag(1, 2, 0x8100, &tagged)),
    );
    is_udp6(&d, 24);
    assert_eq!(d.vlan, 42);
    // Cut short; ARP behind it; counted with VLAN tags against the cap.
    assert_eq!(
        err(
            LinkType::ETHERNET,
            &eth(0x8926, &[0x80, 0x12, 0x00, 0x34, 0x08])
        ),
        DropReason::TruncatedLink
    );
    assert_eq!(
        err(
            LinkType::ETHERNET,
            &eth(0x8926, &vntag(1, 2, 0x0806, &[0; 28]))
        ),
        DropReason::NotIp
    );
    let seven: Vec<(u16, u16)> = (1..=7).map(|v| (0x8100, v)).collect();
    let d = ok(
        LinkType::ETHERNET,
        &eth_tagged(&seven, 0x8926, &vntag(1, 2, ET_IPV4, &tcp4())),
    );
    assert_eq!((d.vlan, d.l3_offset), (7, 14 + 28 + 6));
    let eight: Vec<(u16, u16)> = (1..=8).map(|v| (0x8100, v)).collect();
    assert_eq!(
        err(
            LinkType::ETHERNET,
            &eth_tagged(&eight, 0x8926, &vntag(1, 2, ET_IPV4, &tcp4()))
        ),
        DropReason::TooManyLabels
    );
}

#[test]
fn cisco_fabricpath() {
    // The 16-byte outer header, then the classical frame with its VLAN.
    let inner = eth_tagged(&[(0x8100, 7)], ET_IPV4, &tcp4());
    let d = ok(LinkType::ETHERNET, &fabricpath(256, 32, &inner));
    is_tcp4(&d, 16 + 18);
    assert_eq!((d.vlan, d.tunnel), (7, Tunnel::None));
    // The 20-byte form: an 802.1Q tag before the FabricPath ethertype.
    let mut f = fabricpath(256, 32, &eth(ET_IPV6, &udp6()));
    f.splice(12..12, [0x81, 0x00, 0x00, 0x09]);
    let d = ok(LinkType::ETHERNET, &f);
    is_udp6(&d, 20 + 14);
    assert_eq!(d.vlan, 9);
    // Cut inside the FTag, inside the classical header; a classical ARP.
    let f = fabricpath(256, 32, &inner);
    assert_eq!(err(LinkType::ETHERNET, &f[..15]), DropReason::TruncatedLink);
    assert_eq!(
        err(LinkType::ETHERNET, &f[..16 + 13]),
        DropReason::TruncatedLink
    );
    assert_eq!(
        err(
            LinkType::ETHERNET,
            &fabricpath(1, 63, &eth(0x0806, &[0; 28]))
        ),
        DropReason::NotIp
    );
}

/// An A-MSDU subframe header (destination, source, length) before `msdu`.
fn amsdu_subframe(msdu: &[u8]) -> Vec<u8> {
    let mut s = vec![
        0x00, 0x11, 0x22, 0x33, 0x44, 0x01, 0x00, 0x11, 0x22, 0x33, 0x44, 0x02,
    ];
    s.extend_from_slice(&(msdu.len() as u16).to_be_bytes());
    s.extend_from_slice(msdu);
    s
}

#[test]
fn ieee_802_11_data_frames() {
    let l = LinkType::IEEE802_11;
    let w = |fc: [u8; 2], qos: [u8; 2], body: &[u8]| wifi80211(fc, qos, 0, body);
    // Data to and from the DS: a 24-byte header, then LLC/SNAP.
    for fc1 in [0x01, 0x02] {
        let d = ok(l, &w([0x08, fc1], [0, 0], &snap(ET_IPV4, &tcp4())));
        is_tcp4(&d, 24 + 8);
        assert_eq!((d.vlan, d.tunnel), (0, Tunnel::None));
    }
    // QoS data with four addresses and +HTC: 24 + 6 + 2 + 4.
    is_udp6(
        &ok(l, &w([0x88, 0x83], [0x05, 0x00], &snap(ET_IPV6, &udp6()))),
        36 + 8,
    );
    // QoS data whose body is an A-MSDU: the first subframe is read.
    let body = amsdu_subframe(&snap(ET_IPV4, &tcp4()));
    is_tcp4(&ok(l, &w([0x88, 0x02], [0x80, 0x00], &body)), 26 + 14 + 8);
    // 802.1H bridge-tunnel OUI; a VLAN tag behind SNAP.
    let mut bt = snap(ET_IPV4, &tcp4());
    bt[5] = 0xf8;
    is_tcp4(&ok(l, &w([0x08, 0x02], [0, 0], &bt)), 32);
    let tagged = snap(0x8100, &[&[0x00, 0x0b, 0x08, 0x00][..], &tcp4()].concat());
    let d = ok(l, &w([0x08, 0x02], [0, 0], &tagged));
    assert_eq!((d.vlan, d.l3_offset), (11, 36));
    // Protected flag on a body that reads as LLC/SNAP (decrypted by the capturing device).
    is_tcp4(
        &ok(l, &w([0x08, 0x42], [0, 0], &snap(ET_IPV4, &tcp4()))),
        32,
    );
    // No data: a beacon, a probe request, an ACK (a 10-byte control frame), Null, QoS Null, a
    // protocol version 1 frame.
    let ack = [0xd4, 0x00, 0x00, 0x00, 0x00, 0x11, 0x22, 0x33, 0x44, 0x01];
    for f in [
        w([0x80, 0x00], [0, 0], &[0; 40]),
        w([0x40, 0x00], [0, 0], &[0; 10]),
        ack.to_vec(),
        w([0x48, 0x01], [0, 0], &[]),
        w([0xc8, 0x01], [0, 0], &[]),
        w([0x09, 0x01], [0, 0], &snap(ET_IPV4, &tcp4())),
    ] {
        assert_eq!(err(l, &f), DropReason::WifiNotData, "{f:02x?}");
    }
    // Encrypted: a CCMP header and ciphertext behind the Protected flag.
    let ccmp = [
        0x01, 0x00, 0x00, 0x20, 0x00, 0x00, 0x00, 0x00, 0x9c, 0x4f, 0x11,
    ];
    assert_eq!(
        err(l, &w([0x88, 0x41], [0, 0], &ccmp)),
        DropReason::WifiEncrypted
    );
    // Not IP: ARP in SNAP, a spanning-tree LLC.
    assert_eq!(
        err(l, &w([0x08, 0x02], [0, 0], &snap(0x0806, &[0; 28]))),
        DropReason::NotIp
    );
    assert_eq!(
        err(
            l,
            &w([0x08, 0x02], [0, 0], &[0x42, 0x42, 0x03, 0, 0, 0, 0, 0, 0])
        ),
        DropReason::NotIp
    );
    // Cut short: the frame control, the header, QoS control, the SNAP header.
    let f = w([0x88, 0x02], [0, 0], &snap(ET_IPV4, &tcp4()));
    for cut in [1, 20, 24, 30] {
        assert_eq!(err(l, &f[..cut]), DropReason::TruncatedLink, "{cut}");
    }
}

#[test]
fn ieee_802_11_capture_headers() {
    let w = wifi80211([0x08, 0x02], [0, 0], 0, &snap(ET_IPV4, &tcp4()));
    // Radiotap with TSFT, Flags (FCS at the end) and Rate: 8 + 8 + 1 + 1 bytes. The FCS after
    // the frame is not payload.
    let mut fields = 0x0011_2233_4455_6677u64.to_le_bytes().to_vec();
    fields.extend_from_slice(&[0x10, 0x0c]);
    let mut f = radiotap(&[0x0000_0007], &fields, &w);
    f.extend_from_slice(&[0xde, 0xad, 0xbe, 0xef]);
    is_tcp4(&ok(LinkType::IEEE802_11_RADIOTAP, &f), 18 + 32);
    // Two presence words (Flags and Ext, then none): Flags at 12 says DATAPAD, so a QoS header
    // (26 bytes) is padded to 28.
    let q = wifi80211([0x88, 0x01], [0, 0], 2, &snap(ET_IPV6, &udp6()));
    let f = radiotap(&[0x8000_0002, 0], &[0x20], &q);
    is_udp6(&ok(LinkType::IEEE802_11_RADIOTAP, &f), 13 + 28 + 8);
    // TSFT too: aligned to 16, so Flags is at 24.
    let mut fields = vec![0; 4];
    fields.extend_from_slice(&7u64.to_le_bytes());
    fields.push(0x20);
    let f = radiotap(&[0x8000_0003, 0], &fields, &q);
    is_udp6(&ok(LinkType::IEEE802_11_RADIOTAP, &f), 25 + 28 + 8);
    // No Flags field: no padding.
    let f = radiotap(&[0x0000_0004], &[0x0c], &w);
    is_tcp4(&ok(LinkType::IEEE802_11_RADIOTAP, &f), 9 + 32);
    // A beacon behind radiotap.
    let f = radiotap(
        &[0x0000_0004],
        &[0x0c],
        &wifi80211([0x80, 0x00], [0, 0], 0, &[0; 40]),
    );
    assert_eq!(
        err(LinkType::IEEE802_11_RADIOTAP, &f),
        DropReason::WifiNotData
    );
    // Broken radiotap headers: version 1; a length shorter than its presence words; nine
    // presence words; Flags announced past the length; cut inside the fixed part.
    let mut v1 = radiotap(&[0x0000_0004], &[0x0c], &w);
    v1[0] = 1;
    assert_eq!(
        err(LinkType::IEEE802_11_RADIOTAP, &v1),
        DropReason::UnsupportedLinkType
    );
    let mut short = radiotap(&[0x8000_0002, 0], &[0x20], &q);
    short[2] = 8;
    let nine = radiotap(&[0x8000_0000; 9], &[0, 0, 0, 0], &w);
    let no_flags = radiotap(&[0x0000_0002], &[], &w);
    for (f, why) in [
        (short, DropReason::TruncatedLink),
        (nine, DropReason::TruncatedLink),
        (no_flags, DropReason::TruncatedLink),
        (vec![0, 0, 8, 0, 0, 0], DropReason::TruncatedLink),
    ] {
        assert_eq!(err(LinkType::IEEE802_11_RADIOTAP, &f), why);
    }
    // Prism (144 bytes), and AVS (64 bytes) under its own link type and under Prism's.
    is_tcp4(&ok(LinkType::PRISM_HEADER, &prism(&w)), 144 + 32);
    is_tcp4(&ok(LinkType::IEEE802_11_AVS, &avs(&w)), 64 + 32);
    is_tcp4(&ok(LinkType::PRISM_HEADER, &avs(&w)), 64 + 32);
    assert_eq!(
        err(LinkType::PRISM_HEADER, &prism(&w)[..150]),
        DropReason::TruncatedLink
    );
    let mut bad = avs(&w);
    bad[7] = 4;
    assert_eq!(
        err(LinkType::IEEE802_11_AVS, &bad),
        DropReason::TruncatedLink
    );
    assert_eq!(
        err(LinkType::IEEE802_11_AVS, &prism(&w)),
        DropReason::UnsupportedLinkType
    );
}

#[test]
fn pppoe_without_ethernet_and_compressed_protocols() {
    let l = LinkType::PPP_ETHER;
    let ppp = |head: &[u8], ip: &[u8]| [head, ip].concat();
    // Link type 51: the PPPoE session header first; a 2-byte and a compressed 1-byte protocol
    // (RFC 1661 §6.5), with and without address and control.
    is_tcp4(&ok(l, &pppoe_hdr(0, &ppp(&[0x00, 0x21], &tcp4()))), 8);
    is_tcp4(&ok(l, &pppoe_hdr(0, &ppp(&[0x21], &tcp4()))), 7);
    is_udp6(&ok(l, &pppoe_hdr(0, &ppp(&[0x57], &udp6()))), 7);
    is_tcp4(&ok(l, &pppoe_hdr(0, &ppp(&[0xff, 0x03, 0x21], &tcp4()))), 9);
    // Behind the session ethertype: compressed, with address and control, after QinQ (the shape
    // of dns.pcap).
    is_udp6(
        &ok(
            LinkType::ETHERNET,
            &eth(0x8864, &pppoe_hdr(0, &ppp(&[0x57], &udp6()))),
        ),
        14 + 6 + 1,
    );
    is_tcp4(
        &ok(
            LinkType::ETHERNET,
            &eth(
                0x8864,
                &pppoe_hdr(0, &ppp(&[0xff, 0x03, 0x00, 0x21], &tcp4())),
            ),
        ),
        14 + 6 + 4,
    );
    let d = ok(
        LinkType::ETHERNET,
        &eth_tagged(
            &[(0x8100, 421), (0x8100, 785)],
            0x8864,
            &pppoe_hdr(0, &ppp(&[0x21], &tcp4())),
        ),
    );
    is_tcp4(&d, 22 + 6 + 1);
    assert_eq!(d.vlan, 785);
    // Not IP: discovery (PADI; the code decides, whatever bytes follow) as link type 51, LCP in
    // a session.
    let padi = pppoe_hdr(0x09, &[0x01, 0x01, 0x00, 0x00]);
    assert_eq!(err(l, &padi), DropReason::NotIp);
    let padt = pppoe_hdr(0xa7, &ppp(&[0x00, 0x21], &tcp4()));
    assert_eq!(err(l, &padt), DropReason::NotIp);
    assert_eq!(
        err(l, &pppoe_hdr(0, &[0xc0, 0x21, 0x01, 0x01, 0x00, 0x04])),
        DropReason::NotIp
    );
    // Cut inside the PPPoE header, or before the protocol.
    assert_eq!(err(l, &[0x11, 0x00, 0x12]), DropReason::TruncatedLink);
    assert_eq!(err(l, &pppoe_hdr(0, &[])), DropReason::TruncatedLink);
    assert_eq!(err(l, &pppoe_hdr(0, &[0x00])), DropReason::TruncatedLink);
}

#[test]
fn tunnelled_frames_that_are_not_ip_are_dropped_not_keyed_on_the_tunnel() {
    let arp = eth(0x0806, &[0; 28]);
    let lldp = eth(0x88cc, &[0x02, 0x07, 0x04, 0, 0, 0, 0, 0, 1]);
    let stp = [
        &DST_MAC[..],
        &SRC_MAC,
        &[0x00, 0x26, 0x42, 0x42, 0x03],
        &[0; 35],
    ]
    .concat();
    let capwap_wifi_arp = {
        let mut c = vec![0, 4 << 3, 0x03, 0x20];
        c.resize(16, 0);
        c.extend_from_slice(&wifi80211([0x08, 0x01], [0, 0], 0, &snap(0x0806, &[0; 28])));
        c
    };
    for inner in [&arp, &lldp, &stp] {
        let mut capwap = vec![0, 2 << 3, 0x00, 0x00, 0, 0, 0, 0];
        capwap.extend_from_slice(inner);
        for f in [
            over_udp4(40000, 4789, &vxlan(inner)),
            over_udp4(40000, 6081, &common::geneve(&[], 0x6558, inner)),
            over_udp4(40000, 4754, &gre(0, 0x6558, inner)),
            outer4(47, &gre(0x2000, 0x6558, inner)),
            over_udp4(40000, 5247, &capwap),
        ] {
            assert_eq!(err(LinkType::ETHERNET, &f), DropReason::NotIp);
            // With tunnels off: the outer packet.
            assert!(decode(LinkType::ETHERNET, &f, &OFF).is_ok());
        }
    }
    assert_eq!(
        err(
            LinkType::ETHERNET,
            &over_udp4(12380, 5247, &capwap_wifi_arp)
        ),
        DropReason::NotIp
    );
    // Further in: GTP-U carrying IPv4 and UDP to VXLAN carrying ARP.
    let vx = ipv4_addrs(
        [172, 16, 0, 1],
        [172, 16, 0, 2],
        17,
        &udp(1, 4789, &vxlan(&arp)),
    );
    assert_eq!(
        err(
            LinkType::ETHERNET,
            &over_udp4(2152, 2152, &gtpu(None, &[], &vx))
        ),
        DropReason::NotIp
    );
    // At the nesting cap the frame is not opened: the packet at the cap is the flow.
    let mut p = vx;
    for _ in 0..4 {
        p = ipv4_addrs([10, 9, 9, 9], [10, 8, 8, 8], 4, &p);
    }
    let d = ok(LinkType::RAW, &p);
    assert_eq!(
        (d.src, d.dst_port, d.tunnel),
        (a4([172, 16, 0, 1]), 4789, Tunnel::IpInIp)
    );
    // IGMP and OSPF inside VXLAN: inner flows with ports 0, as each would be on its own.
    let report = [0x22, 0, 0xf9, 0x02, 0, 0, 0, 1, 4, 0, 0, 0, 239, 1, 2, 3];
    let igmp = V4 {
        dst: [224, 0, 0, 22],
        ttl: 1,
        ..V4::new(2)
    }
    .build(&report);
    let d = ok(
        LinkType::ETHERNET,
        &over_udp4(40000, 4789, &vxlan(&eth(ET_IPV4, &igmp))),
    );
    assert_eq!(
        (d.proto, d.src, d.dst, d.src_port, d.dst_port, d.tunnel),
        (2, a4(SRC4), a4([224, 0, 0, 22]), 0, 0, Tunnel::Vxlan)
    );
    assert_eq!((d.ttl, d.payload), (1, &report[..]));
    let d = ok(
        LinkType::ETHERNET,
        &over_udp4(40000, 4789, &vxlan(&eth(ET_IPV4, &ipv4(89, b"hello")))),
    );
    assert_eq!(
        (d.proto, d.payload, d.tunnel),
        (89, &b"hello"[..], Tunnel::Vxlan)
    );
    // Tunnels defined to carry IP whose payload is not IP were not that tunnel: the outer
    // packet. GTP-U with a payload that is not IP, Geneve and GRE-in-UDP typed LLDP, GRE over
    // IP typed ARP, PPTP carrying LCP.
    for (sport, dport, body) in [
        (2152, 2152, gtpu(None, &[], &[0x10; 30])),
        (40000, 6081, common::geneve(&[], 0x88cc, &[0; 20])),
        (40000, 4754, gre(0, 0x88cc, &[0; 20])),
    ] {
        let d = ok(LinkType::ETHERNET, &over_udp4(sport, dport, &body));
        is_outer_udp(&d, sport, dport, &body);
    }
    is_outer4(
        &ok(LinkType::ETHERNET, &outer4(47, &gre(0, 0x0806, &[0; 28]))),
        47,
    );
    let lcp = [0xff, 0x03, 0xc0, 0x21, 0x01, 0x01, 0x00, 0x04];
    is_outer4(
        &ok(LinkType::ETHERNET, &outer4(47, &gre(0x2001, 0x880b, &lcp))),
        47,
    );
}

#[test]
fn gtp_variants() {
    // GTPv1-U over an IPv6 outer header.
    let o = ipv6_addrs(
        DST6,
        SRC6,
        17,
        &udp(2152, 2152, &gtpu(Some(1), &[], &tcp4())),
    );
    let d = ok(LinkType::ETHERNET, &eth(ET_IPV6, &o));
    is_tcp4(&d, 14 + 40 + 8 + 12);
    assert_eq!(d.tunnel, Tunnel::GtpU);
    // A chain of three extension headers (UDP port, PDU session container, a 3-unit one).
    let exts = [
        (0x40, vec![0x08, 0x68]),
        (0x85, vec![0x10, 0x09]),
        (0x20, vec![0xab; 10]),
    ];
    let g = gtpu(Some(9), &exts, &udp6());
    is_udp6(
        &ok(LinkType::ETHERNET, &over_udp4(2152, 2152, &g)),
        18 + 20 + 8 + 12 + 4 + 4 + 12,
    );
    // Only G-PDUs are opened: echo request and response, error indication, end marker, supported
    // extension headers notification; GTP' (PT clear) on the GTP-U port; a chain whose next
    // type is cut off.
    let plain = gtpu(None, &[], &tcp4());
    let mut gtp_prime = plain.clone();
    gtp_prime[0] = 0x2e;
    let mut cut_chain = gtpu(None, &[(0x85, vec![0x10, 0x09])], &[]);
    cut_chain.truncate(cut_chain.len() - 1);
    let mut outer = vec![gtp_prime, cut_chain];
    for msg in [1u8, 2, 26, 254, 31] {
        let mut m = plain.clone();
        m[1] = msg;
        outer.push(m);
    }
    for g in outer {
        let d = ok(LinkType::ETHERNET, &over_udp4(2152, 2152, &g));
        is_outer_udp(&d, 2152, 2152, &g);
    }
    // GTP-C (UDP 2123) is control, not a tunnel: a GTPv2-C Create Session Request, a GTPv1-C
    // Echo Request, even a G-PDU-shaped message.
    let v2c = [
        0x48, 0x20, 0x00, 0x0c, 0, 0, 0, 0, 0x00, 0x12, 0x34, 0x00, 0, 0, 0, 0,
    ];
    let v1c = [0x32, 0x01, 0x00, 0x04, 0, 0, 0, 0, 0x00, 0x01, 0x00, 0x00];
    for g in [v2c.to_vec(), v1c.to_vec(), plain] {
        let d = ok(LinkType::ETHERNET, &over_udp4(40000, 2123, &g));
        is_outer_udp(&d, 40000, 2123, &g);
    }
}

#[test]
fn the_nesting_cap_holds_for_every_tunnel() {
    // Geneve, then Teredo, then GRE-in-UDP, then VXLAN: four levels, all removed; the outermost
    // is reported.
    let vx = ipv4_addrs(
        [10, 4, 0, 1],
        [10, 4, 0, 2],
        17,
        &udp(1, 4789, &vxlan(&eth(ET_IPV4, &tcp4()))),
    );
    let gu = ipv6(17, &udp(2, 4754, &gre(0, ET_IPV4, &vx)));
    let te = ipv4_addrs([10, 2, 0, 1], [10, 2, 0, 2], 17, &udp(3544, 3, &gu));
    let f = over_udp4(4, 6081, &common::geneve(&[], ET_IPV4, &te));
    let d = ok(LinkType::ETHERNET, &f);
    is_tcp4(&d, (f.len() - tcp4().len()) as u16);
    assert_eq!(d.tunnel, Tunnel::Geneve);
    // AYIYA in AYIYA: four levels are removed; with a fifth, the packet at the cap (the
    // innermost wrapper) is the flow.
    let mut p = tcp4();
    for i in 0..4 {
        p = ipv4_addrs(
            [10, 9, 9, i],
            [10, 8, 8, 8],
            17,
            &udp(40000, 5072, &common::ayiya(0, 0, 1, 4, &p)),
        );
    }
    is_tcp4(&ok(LinkType::RAW, &p), 4 * (20 + 8 + 9));
    let p = ipv4_addrs(
        [10, 7, 7, 7],
        [10, 8, 8, 8],
        17,
        &udp(40000, 5072, &common::ayiya(0, 0, 1, 4, &p)),
    );
    let d = ok(LinkType::RAW, &p);
    assert_eq!(
        (d.src, d.proto, d.dst_port, d.tunnel),
        (a4([10, 9, 9, 0]), 17, 5072, Tunnel::Ayiya)
    );
}

// ---------------------------------------------------------------- the contract

#[test]
fn drop_reasons_are_indexed_and_named_uniquely() {
    let mut names: Vec<&str> = DropReason::ALL.iter().map(|r| r.as_str()).collect();
    for (i, r) in DropReason::ALL.iter().enumerate() {
        assert_eq!(r.index(), i);
    }
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), DropReason::COUNT);
}

#[test]
fn every_drop_reason_is_reachable() {
    let mut seen = [false; DropReason::COUNT];
    let mut ppp_lcp = vec![0xff, 0x03, 0xc0, 0x21];
    ppp_lcp.extend_from_slice(&[1, 1, 0, 4]);
    let mut bad_tcp = tcp(1, 2, &[]);
    bad_tcp[12] = 0x20;
    let tags: Vec<(u16, u16)> = (1..=9).map(|v| (0x8100, v)).collect();
    let cases: Vec<(LinkType, Vec<u8>)> = vec![
        (LinkType(3), tcp4()),
        (LinkType::ETHERNET, vec![0; 10]),
        (LinkType::PPP, ppp_lcp),
        (LinkType::IPV4, tcp4()[..10].to_vec()),
        (LinkType::IPV4, udp6()),
        (LinkType::IPV6, udp6()[..30].to_vec()),
        (LinkType::IPV6, tcp4()),
        (LinkType::RAW, ipv4(17, &[0; 4])),
        (LinkType::RAW, ipv4(6, &bad_tcp)),
        (LinkType::RAW, ipv4(47, &[0])),
        (LinkType::ETHERNET, eth_tagged(&tags, ET_IPV4, &tcp4())),
        (
            LinkType::IEEE802_11,
            wifi80211([0x80, 0x00], [0, 0], 0, &[0; 12]),
        ),
        (
            LinkType::IEEE802_11,
            wifi80211(
                [0x08, 0x42],
                [0, 0],
                0,
                &[0x01, 0x00, 0x00, 0x20, 0, 0, 0, 0, 0x99],
            ),
        ),
    ];
    for (link, f) in &cases {
        seen[err(*link, f).index()] = true;
    }
    // Not the decoder's own verdict: the engine checks the length against the wire length.
    let d = ok(LinkType::ETHERNET, &corrupt_total_length());
    if d.beyond_frame(86, 86) {
        seen[DropReason::IpBeyondFrame.index()] = true;
    }
    assert!(seen.iter().all(|&s| s), "{seen:?}");
}

/// fuzz-2006-06-26-2594.pcap frame 104 (86 bytes captured, 86 on the wire): a DNS query whose
/// IPv4 total length was fuzzed to 0x1148 (4,424). tshark: "IPv4 total length exceeds packet
/// length (72 bytes)"; nDPI counts the flow 192.168.1.2:2722 -> 53 without it (4 packets).
fn corrupt_total_length() -> Vec<u8> {
    let hex = "003054003456 00e0ed016edb 0800 \
               4500 1148 69cc 0000 8011 4d85 c0a80102 c0a80101 \
               0aa2 0035 0034 6c4d \
               bdd5 0100 0001 0000 0000 0000 045f736970 045f756470 03736970 \
               09637962657263697479 02646b 00 0021 0001";
    let h: Vec<u8> = hex.bytes().filter(u8::is_ascii_hexdigit).collect();
    h.chunks(2)
        .map(|p| u8::from_str_radix(std::str::from_utf8(p).unwrap(), 16).unwrap())
        .collect()
}

#[test]
fn an_ip_length_beyond_the_wire_frame_is_corrupt_but_a_snap_length_cut_is_not() {
    let f = corrupt_total_length();
    assert_eq!(f.len(), 86);
    let d = ok(LinkType::ETHERNET, &f);
    assert_eq!((d.l3_offset, d.ip_len), (14, 4424));
    // As captured: 86 bytes on the wire, all captured.
    assert!(d.beyond_frame(86, 86));
    // The same bytes as the head of a 4,438-byte frame cut by a snap length: truncation.
    assert!(!d.beyond_frame(14 + 4424, 86));
    assert!(d.beyond_frame(14 + 4423, 86));
    // A wire length below what was captured (a broken record) counts as what was captured.
    let ok_len = ok(LinkType::ETHERNET, &eth(ET_IPV4, &tcp4()));
    let n = 14 + tcp4().len();
    assert!(!ok_len.beyond_frame(0, n));
    assert!(!ok_len.beyond_frame(n, n));
    assert!(ok_len.beyond_frame(n - 1, n - 1));
}

#[test]
fn payload_always_borrows_from_the_frame() {
    let f = outer4(17, &udp(40000, 4789, &vxlan(&eth(ET_IPV4, &tcp4()))));
    let d = decode(LinkType::ETHERNET, &f, &ON).unwrap();
    let base = f.as_ptr() as usize;
    let p = d.payload.as_ptr() as usize;
    assert!(p >= base && p + d.payload.len() <= base + f.len());
    assert_eq!(p - base, f.len() - PAYLOAD.len());
}
