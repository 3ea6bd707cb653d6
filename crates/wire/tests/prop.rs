//! Property tests: the decoder never panics on any bytes, and frames built from random valid
//! parameters (with a builder written here, apart from the decoder) decode to exactly those
//! parameters, through VLAN tags, MPLS, PPPoE, the other link-layer encapsulations, 802.11 and
//! tunnels.

use proptest::prelude::*;
use wirespeed_wire::{decode, DecodeConfig, DropReason, LinkType, Tunnel};

const LINKS: &[u32] = &[
    0, 1, 9, 12, 14, 51, 101, 104, 105, 108, 113, 119, 127, 163, 192, 228, 229, 276, 7777,
];

/// UDP ports on which the decoder looks for a tunnel (either side, to be safe).
const TUNNEL_PORTS: &[u16] = &[4789, 6081, 4754, 2152, 5247, 3544, 5072];

#[derive(Clone, Debug)]
struct Flow {
    v6: bool,
    src: [u8; 16],
    dst: [u8; 16],
    tcp: bool,
    sport: u16,
    dport: u16,
    payload: Vec<u8>,
}

fn ip_packet(f: &Flow) -> Vec<u8> {
    let mut l4 = Vec::new();
    l4.extend_from_slice(&f.sport.to_be_bytes());
    l4.extend_from_slice(&f.dport.to_be_bytes());
    if f.tcp {
        l4.extend_from_slice(&[0, 0, 0, 1, 0, 0, 0, 0, 0x50, 0x18, 0xff, 0xff, 0, 0, 0, 0]);
    } else {
        l4.extend_from_slice(&((8 + f.payload.len()) as u16).to_be_bytes());
        l4.extend_from_slice(&[0, 0]);
    }
    l4.extend_from_slice(&f.payload);
    let proto = if f.tcp { 6 } else { 17 };
    ip_wrap(f.v6, &f.src, &f.dst, proto, &l4)
}

fn ip_wrap(v6: bool, src: &[u8; 16], dst: &[u8; 16], proto: u8, body: &[u8]) -> Vec<u8> {
    let mut p = Vec::new();
    if v6 {
        p.extend_from_slice(&[0x60, 0, 0, 0]);
        p.extend_from_slice(&(body.len() as u16).to_be_bytes());
        p.extend_from_slice(&[proto, 64]);
        p.extend_from_slice(src);
        p.extend_from_slice(dst);
    } else {
        p.extend_from_slice(&[0x45, 0]);
        p.extend_from_slice(&((20 + body.len()) as u16).to_be_bytes());
        p.extend_from_slice(&[0, 0, 0x40, 0, 64, proto, 0, 0]);
        p.extend_from_slice(&src[..4]);
        p.extend_from_slice(&dst[..4]);
    }
    p.extend_from_slice(body);
    p
}

fn ethertype(v6: bool) -> [u8; 2] {
    if v6 {
        [0x86, 0xdd]
    } else {
        [0x08, 0x00]
    }
}

fn ethernet(vlans: &[u16], v6: bool, ip: &[u8]) -> Vec<u8> {
    let mut e = vec![2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1];
    for v in vlans {
        e.extend_from_slice(&[0x81, 0x00]);
        e.extend_from_slice(&v.to_be_bytes());
    }
    e.extend_from_slice(&ethertype(v6));
    e.extend_from_slice(ip);
    e
}

fn flow() -> impl Strategy<Value = Flow> {
    (
        any::<bool>(),
        any::<[u8; 16]>(),
        any::<[u8; 16]>(),
        any::<bool>(),
        any::<u16>(),
        any::<u16>(),
        proptest::collection::vec(any::<u8>(), 0..64),
    )
        .prop_map(|(v6, mut src, mut dst, tcp, sport, dport, payload)| {
            if !v6 {
                src[4..].fill(0);
                dst[4..].fill(0);
            }
            // Keep clear of the ports that start tunnel decoding.
            let fix = |p: u16| if TUNNEL_PORTS.contains(&p) { p + 1 } else { p };
            Flow {
                v6,
                src,
                dst,
                tcp,
                sport: fix(sport),
                dport: fix(dport),
                payload,
            }
        })
}

fn check(d: &wirespeed_wire::Decoded<'_>, f: &Flow) {
    assert_eq!(d.ip_version, if f.v6 { 6 } else { 4 });
    assert_eq!(d.src, f.src);
    assert_eq!(d.dst, f.dst);
    assert_eq!(d.proto, if f.tcp { 6 } else { 17 });
    assert_eq!((d.src_port, d.dst_port), (f.sport, f.dport));
    assert_eq!(d.payload, &f.payload[..]);
    assert_eq!(d.tcp.is_some(), f.tcp);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn never_panics_on_any_bytes(link in proptest::sample::select(LINKS), bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
        if let Ok(d) = decode(LinkType(link), &bytes, &DecodeConfig::default()) {
            let (s, e) = (bytes.as_ptr() as usize, bytes.as_ptr() as usize + bytes.len());
            let p = d.payload.as_ptr() as usize;
            prop_assert!(d.payload.is_empty() || (p >= s && p + d.payload.len() <= e));
            prop_assert!((d.l3_offset as usize) < bytes.len());
        }
    }

    #[test]
    fn ethernet_with_vlans_round_trips(f in flow(), vlans in proptest::collection::vec(1u16..4095, 0..3)) {
        let frame = ethernet(&vlans, f.v6, &ip_packet(&f));
        let d = decode(LinkType::ETHERNET, &frame, &DecodeConfig::default()).unwrap();
        check(&d, &f);
        prop_assert_eq!(d.vlan, vlans.last().copied().unwrap_or(0));
        prop_assert_eq!(d.tunnel, Tunnel::None);
    }

    #[test]
    fn padding_is_not_payload(f in flow(), pad in 1usize..40) {
        let mut frame = ethernet(&[], f.v6, &ip_packet(&f));
        frame.extend(std::iter::repeat_n(0u8, pad));
        let d = decode(LinkType::ETHERNET, &frame, &DecodeConfig::default()).unwrap();
        check(&d, &f);
    }

    #[test]
    fn truncation_never_panics_and_keeps_headers(f in flow(), cut in 0usize..200) {
        let frame = ethernet(&[7], f.v6, &ip_packet(&f));
        let cut = cut.min(frame.len());
        match decode(LinkType::ETHERNET, &frame[..cut], &DecodeConfig::default()) {
            Ok(d) => {
                prop_assert_eq!((d.src_port, d.dst_port), (f.sport, f.dport));
                prop_assert!(f.payload.starts_with(d.payload));
            }
            Err(r) => prop_assert!(matches!(r, DropReason::TruncatedLink | DropReason::TruncatedIpv4 | DropReason::TruncatedIpv6 | DropReason::TruncatedL4)),
        }
    }

    #[test]
    fn mpls_and_pppoe_round_trip(f in flow(), labels in 1usize..5) {
        let ip = ip_packet(&f);
        let mut m = vec![2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x88, 0x47];
        for i in 0..labels {
            let bos = if i + 1 == labels { 1 } else { 0 };
            m.extend_from_slice(&[0, 0x10, bos, 64]);
        }
        m.extend_from_slice(&ip);
        check(&decode(LinkType::ETHERNET, &m, &DecodeConfig::default()).unwrap(), &f);

        let mut p = vec![2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x88, 0x64, 0x11, 0, 0, 1];
        p.extend_from_slice(&((ip.len() + 2) as u16).to_be_bytes());
        p.extend_from_slice(if f.v6 { &[0x00, 0x57] } else { &[0x00, 0x21] });
        p.extend_from_slice(&ip);
        check(&decode(LinkType::ETHERNET, &p, &DecodeConfig::default()).unwrap(), &f);
    }

    #[test]
    fn tunnels_yield_the_inner_flow(f in flow(), kind in 0u8..4, outer_v6 in any::<bool>()) {
        let inner = ip_packet(&f);
        let (osrc, odst) = ([9u8; 16], [8u8; 16]);
        let (osrc, odst) = if outer_v6 { (osrc, odst) } else {
            let mut a = [0u8; 16]; a[..4].copy_from_slice(&[192, 0, 2, 1]);
            let mut b = [0u8; 16]; b[..4].copy_from_slice(&[192, 0, 2, 2]);
            (a, b)
        };
        let udp = |dport: u16, body: &[u8]| {
            let mut u = vec![0x30, 0x39];
            u.extend_from_slice(&dport.to_be_bytes());
            u.extend_from_slice(&((8 + body.len()) as u16).to_be_bytes());
            u.extend_from_slice(&[0, 0]);
            u.extend_from_slice(body);
            u
        };
        let (outer, want) = match kind {
            0 => {
                let mut v = vec![0x08, 0, 0, 0, 0, 0, 1, 0];
                v.extend_from_slice(&ethernet(&[], f.v6, &inner));
                (ip_wrap(outer_v6, &osrc, &odst, 17, &udp(4789, &v)), Tunnel::Vxlan)
            }
            1 => {
                let mut g = vec![0x30, 0xff];
                g.extend_from_slice(&(inner.len() as u16).to_be_bytes());
                g.extend_from_slice(&[0, 0, 0, 1]);
                g.extend_from_slice(&inner);
                (ip_wrap(outer_v6, &osrc, &odst, 17, &udp(2152, &g)), Tunnel::GtpU)
            }
            2 => {
                let mut g = vec![0x20, 0x00];
                g.extend_from_slice(&ethertype(f.v6));
                g.extend_from_slice(&[0, 0, 0, 42]);
                g.extend_from_slice(&inner);
                (ip_wrap(outer_v6, &osrc, &odst, 47, &g), Tunnel::Gre)
            }
            _ => (ip_wrap(outer_v6, &osrc, &odst, if f.v6 { 41 } else { 4 }, &inner), Tunnel::IpInIp),
        };
        let frame = ethernet(&[], outer_v6, &outer);
        let d = decode(LinkType::ETHERNET, &frame, &DecodeConfig::default()).unwrap();
        check(&d, &f);
        prop_assert_eq!(d.tunnel, want);
    }
}

#[test]
fn too_many_vlan_tags_is_a_named_drop() {
    let f = Flow {
        v6: false,
        src: [1; 16],
        dst: [2; 16],
        tcp: false,
        sport: 1,
        dport: 2,
        payload: vec![],
    };
    let frame = ethernet(&[5; 9], false, &ip_packet(&f));
    assert_eq!(
        decode(LinkType::ETHERNET, &frame, &DecodeConfig::default()),
        Err(DropReason::TooManyLabels)
    );
}

#[test]
fn arp_is_not_ip_and_unknown_link_is_named() {
    let mut arp = vec![0xff; 6];
    arp.extend_from_slice(&[2, 0, 0, 0, 0, 1, 0x08, 0x06]);
    arp.extend_from_slice(&[0; 28]);
    assert_eq!(
        decode(LinkType::ETHERNET, &arp, &DecodeConfig::default()),
        Err(DropReason::NotIp)
    );
    assert_eq!(
        decode(LinkType(7777), &arp, &DecodeConfig::default()),
        Err(DropReason::UnsupportedLinkType)
    );
}

/// `ip` behind each link layer, with the offset of the IP header.
fn link_wrap(link: u32, v6: bool, ip: &[u8]) -> (Vec<u8>, usize) {
    let et = ethertype(v6);
    let head: Vec<u8> = match link {
        0 => (if v6 { 24u32 } else { 2 }).to_le_bytes().to_vec(),
        108 => (if v6 { 30u32 } else { 2 }).to_be_bytes().to_vec(),
        9 => vec![0xff, 0x03, 0x00, if v6 { 0x57 } else { 0x21 }],
        104 => vec![0x0f, 0x00, et[0], et[1]],
        113 => vec![0, 0, 0, 1, 0, 6, 2, 0, 0, 0, 0, 1, 0, 0, et[0], et[1]],
        276 => vec![
            et[0], et[1], 0, 0, 0, 0, 0, 2, 0, 1, 0, 6, 2, 0, 0, 0, 0, 1, 0, 0,
        ],
        192 => {
            let mut p = vec![0, 0, 8, 0, 1, 0, 0, 0];
            p.extend_from_slice(&ethernet(&[], v6, &[]));
            p
        }
        1 => ethernet(&[], v6, &[]),
        _ => Vec::new(), // raw IP link types
    };
    let off = head.len();
    ([head, ip.to_vec()].concat(), off)
}

/// Mutate `frame` at the given positions (each taken modulo the length) with the given bytes.
fn mutate(frame: &mut [u8], edits: &[(usize, u8)]) {
    if frame.is_empty() {
        return;
    }
    let n = frame.len();
    for &(at, b) in edits {
        frame[at % n] = b;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    #[test]
    fn every_link_type_round_trips(f in flow(), link in proptest::sample::select(&[0u32, 1, 9, 12, 14, 101, 104, 108, 113, 192, 276][..])) {
        let (frame, off) = link_wrap(link, f.v6, &ip_packet(&f));
        let d = decode(LinkType(link), &frame, &DecodeConfig::default()).unwrap();
        check(&d, &f);
        prop_assert_eq!(d.l3_offset as usize, off);
        prop_assert_eq!(d.ttl, 64);
        prop_assert_eq!(d.ip_len as usize, frame.len() - off);
    }

    #[test]
    fn raw_v4_v6_link_types_round_trip(f in flow()) {
        let link = if f.v6 { LinkType::IPV6 } else { LinkType::IPV4 };
        check(&decode(link, &ip_packet(&f), &DecodeConfig::default()).unwrap(), &f);
    }

    #[test]
    fn nested_ip_in_ip_to_the_cap(f in flow(), levels in 1usize..7) {
        let mut p = ip_packet(&f);
        let mut v6 = f.v6;
        let (a, b) = ([0x11u8; 16], [0x22u8; 16]);
        for _ in 0..levels {
            p = ip_wrap(!v6, &a, &b, if v6 { 41 } else { 4 }, &p);
            v6 = !v6;
        }
        let d = decode(LinkType::RAW, &p, &DecodeConfig::default()).unwrap();
        prop_assert_eq!(d.tunnel, Tunnel::IpInIp);
        if levels <= wirespeed_wire::MAX_TUNNEL_DEPTH as usize {
            check(&d, &f);
        } else {
            // The level at the cap is the flow: an outer header carrying IP.
            prop_assert!(d.proto == 4 || d.proto == 41);
            prop_assert_eq!((d.src_port, d.dst_port), (0, 0));
        }
    }

    #[test]
    fn mutated_frames_never_panic(
        f in flow(),
        kind in 0u8..3,
        link in proptest::sample::select(&[0u32, 1, 9, 101, 104, 113, 192, 276][..]),
        edits in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..6),
        cut in any::<usize>(),
    ) {
        // A valid tunnelled or plain frame, then a few bytes changed and the end cut anywhere:
        // reaches the deep layers that random bytes alone rarely do.
        let inner = ip_packet(&f);
        let ip = match kind {
            0 => inner,
            1 => {
                let mut g = vec![0xb0, 0x00];
                g.extend_from_slice(&ethertype(f.v6));
                g.extend_from_slice(&[0; 12]);
                g.extend_from_slice(&inner);
                ip_wrap(false, &[1; 16], &[2; 16], 47, &g)
            }
            _ => {
                let mut v = vec![0x08, 0, 0, 0, 0, 0, 1, 0];
                v.extend_from_slice(&ethernet(&[9], f.v6, &inner));
                let mut u = vec![0x30, 0x39, 0x12, 0xb5];
                u.extend_from_slice(&((8 + v.len()) as u16).to_be_bytes());
                u.extend_from_slice(&[0, 0]);
                u.extend_from_slice(&v);
                ip_wrap(true, &[1; 16], &[2; 16], 17, &u)
            }
        };
        let v6 = f.v6 && kind == 0 || kind == 2;
        let (mut frame, _) = link_wrap(link, v6, &ip);
        mutate(&mut frame, &edits);
        let frame = &frame[..cut % (frame.len() + 1)];
        for cfg in [DecodeConfig { decode_tunnels: true }, DecodeConfig { decode_tunnels: false }] {
            if let Ok(d) = decode(LinkType(link), frame, &cfg) {
                let (s, e) = (frame.as_ptr() as usize, frame.as_ptr() as usize + frame.len());
                let p = d.payload.as_ptr() as usize;
                prop_assert!(d.payload.is_empty() || (p >= s && p + d.payload.len() <= e));
                prop_assert!((d.l3_offset as usize) < frame.len());
                prop_assert!(d.ip_version == 4 || d.ip_version == 6);
            }
        }
    }
}

/// Where a decoded view may point: its payload inside the frame, its IP header before the end.
fn sane(frame: &[u8], d: &wirespeed_wire::Decoded<'_>) -> Result<(), TestCaseError> {
    let (s, e) = (
        frame.as_ptr() as usize,
        frame.as_ptr() as usize + frame.len(),
    );
    let p = d.payload.as_ptr() as usize;
    prop_assert!(d.payload.is_empty() || (p >= s && p + d.payload.len() <= e));
    prop_assert!((d.l3_offset as usize) < frame.len());
    prop_assert!(d.ip_version == 4 || d.ip_version == 6);
    Ok(())
}

/// The start of a frame, up to the header under test: (link type, bytes). What follows it is
/// random.
fn heads() -> Vec<(u32, Vec<u8>)> {
    let macs = [2u8, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1];
    let eth_type = |et: u16| [&macs[..], &et.to_be_bytes()].concat();
    let udp4 = |dport: u16| {
        let mut v = eth_type(0x0800);
        v.extend_from_slice(&[0x45, 0, 0x05, 0xdc, 0, 0, 0x40, 0, 64, 17, 0, 0]);
        v.extend_from_slice(&[192, 0, 2, 1, 192, 0, 2, 2]);
        v.extend_from_slice(&[0x30, 0x39]);
        v.extend_from_slice(&dport.to_be_bytes());
        v.extend_from_slice(&[0x05, 0xc8, 0, 0]);
        v
    };
    let mut h: Vec<(u32, Vec<u8>)> = TUNNEL_PORTS.iter().map(|&p| (1, udp4(p))).collect();
    for et in [0x88e7u16, 0x8926, 0x8903, 0x8864, 0x88a8] {
        h.push((1, eth_type(et)));
    }
    // GRE over IP with each protocol type the decoder follows.
    for proto in [0x6558u16, 0x88be, 0x22eb, 0x0800, 0x86dd] {
        let mut v = eth_type(0x0800);
        v.extend_from_slice(&[0x45, 0, 0x05, 0xdc, 0, 0, 0x40, 0, 64, 47, 0, 0]);
        v.extend_from_slice(&[192, 0, 2, 1, 192, 0, 2, 2, 0x00, 0x00]);
        v.extend_from_slice(&proto.to_be_bytes());
        h.push((1, v));
    }
    // 802.11 data frames (plain, QoS with four addresses and +HTC), behind each capture header.
    let data = [0x08u8, 0x02];
    let qos = [0x88u8, 0x83];
    for fc in [data, qos] {
        h.push((105, fc.to_vec()));
        h.push((127, [&[0, 0, 9, 0, 2, 0, 0, 0, 0x20][..], &fc].concat()));
        h.push((119, [&[0u8; 144][..], &fc].concat()));
        h.push((
            163,
            [&[0x80, 0x21, 0x10, 0x01, 0, 0, 0, 8][..], &fc].concat(),
        ));
        h.push((192, [&[0, 0, 8, 0, 105, 0, 0, 0][..], &fc].concat()));
    }
    h.push((127, vec![0, 0]));
    h.push((51, vec![0x11, 0x00, 0x12, 0x34]));
    h
}

/// `ip` (the packet of `f`) in one of the encapsulations added with Geneve, Teredo, AYIYA,
/// GRE-in-UDP, 802.1ah, VN-Tag, FabricPath, 802.11 and PPPoE without Ethernet, built here from
/// their specifications: (link type, frame, tunnel expected).
fn encapsulate(kind: u8, f: &Flow, ip: &[u8]) -> (u32, Vec<u8>, Tunnel) {
    let et = ethertype(f.v6);
    let udp4 = |dport: u16, body: &[u8]| {
        let mut u = vec![0x9c, 0x40];
        u.extend_from_slice(&dport.to_be_bytes());
        u.extend_from_slice(&((8 + body.len()) as u16).to_be_bytes());
        u.extend_from_slice(&[0, 0]);
        u.extend_from_slice(body);
        let (a, b) = ([0x0au8; 16], [0x0bu8; 16]);
        ethernet(&[], false, &ip_wrap(false, &a, &b, 17, &u))
    };
    let inner_eth = ethernet(&[], f.v6, ip);
    let snap = [&[0xaa, 0xaa, 0x03, 0, 0, 0][..], &et, ip].concat();
    match kind {
        // Geneve: an 8-byte option, then Ethernet; or IP directly.
        0 => {
            let mut g = vec![0x02, 0x00, 0x65, 0x58, 0, 0, 1, 0];
            g.extend_from_slice(&[0x01, 0x02, 0x03, 0x01, 9, 9, 9, 9]);
            g.extend_from_slice(&inner_eth);
            (1, udp4(6081, &g), Tunnel::Geneve)
        }
        1 => {
            let mut g = vec![0x00, 0x00, et[0], et[1], 0, 0, 1, 0];
            g.extend_from_slice(ip);
            (1, udp4(6081, &g), Tunnel::Geneve)
        }
        // Teredo (IPv6 only; IPv4 flows go by AYIYA): authentication, origin indication.
        2 if f.v6 => {
            let mut t = vec![0x00, 0x01, 2, 1, 0x61, 0x62, 0x63];
            t.extend_from_slice(&[7; 9]);
            t.extend_from_slice(&[0x00, 0x00, 0xf2, 0x3e, 0x3f, 0xff, 0xfd, 0xf6]);
            t.extend_from_slice(ip);
            (1, udp4(3544, &t), Tunnel::Teredo)
        }
        2 | 3 => {
            let next = if f.v6 { 41 } else { 4 };
            let mut a = vec![0x21, 0x52, 0x11, next, 0, 0, 0, 1];
            a.extend_from_slice(&[0x33; 4 + 20]);
            a.extend_from_slice(ip);
            (1, udp4(5072, &a), Tunnel::Ayiya)
        }
        // GRE-in-UDP with a key.
        4 => {
            let mut g = vec![0x20, 0x00, et[0], et[1], 0, 0, 0, 7];
            g.extend_from_slice(ip);
            (1, udp4(4754, &g), Tunnel::GreInUdp)
        }
        // 802.1ah: B-tag, I-TAG, the customer frame.
        5 => {
            let mut e = vec![
                2, 0, 0, 0, 0, 0xb2, 2, 0, 0, 0, 0, 0xb1, 0x88, 0xa8, 0, 100, 0x88, 0xe7,
            ];
            e.extend_from_slice(&[0x60, 0x01, 0xe2, 0x40]);
            e.extend_from_slice(&inner_eth);
            (1, e, Tunnel::None)
        }
        // VN-Tag.
        6 => {
            let mut e = vec![
                2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x89, 0x26, 0x80, 0x12, 0x00, 0x34,
            ];
            e.extend_from_slice(&et);
            e.extend_from_slice(ip);
            (1, e, Tunnel::None)
        }
        // FabricPath.
        7 => {
            let mut e = vec![
                2, 0x0a, 0xbd, 0, 0, 0, 2, 0x0a, 0xbc, 0, 0, 0, 0x89, 0x03, 0x40, 0x20,
            ];
            e.extend_from_slice(&inner_eth);
            (1, e, Tunnel::None)
        }
        // 802.11: QoS data with four addresses, then LLC/SNAP; behind radiotap with DATAPAD.
        8 => {
            let mut w = vec![0x88, 0x03];
            w.extend_from_slice(&[0; 22 + 6 + 2]);
            w.extend_from_slice(&snap);
            (105, w, Tunnel::None)
        }
        9 => {
            let mut w = vec![0, 0, 9, 0, 2, 0, 0, 0, 0x20, 0x88, 0x01];
            w.extend_from_slice(&[0; 22 + 2 + 2]);
            w.extend_from_slice(&snap);
            (127, w, Tunnel::None)
        }
        // PPPoE without Ethernet, the PPP protocol compressed to one byte.
        _ => {
            let mut p = vec![0x11, 0x00, 0x12, 0x34];
            p.extend_from_slice(&((ip.len() + 1) as u16).to_be_bytes());
            p.push(if f.v6 { 0x57 } else { 0x21 });
            p.extend_from_slice(ip);
            (51, p, Tunnel::None)
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    /// Random bytes after each header the newer decoders read: never a panic, never a view
    /// outside the frame, tunnels on or off.
    #[test]
    fn random_bytes_after_each_new_header_never_panic(
        pick in any::<usize>(),
        tail in proptest::collection::vec(any::<u8>(), 0..160),
    ) {
        let heads = heads();
        let (link, head) = &heads[pick % heads.len()];
        let frame = [&head[..], &tail].concat();
        for cfg in [DecodeConfig { decode_tunnels: true }, DecodeConfig { decode_tunnels: false }] {
            if let Ok(d) = decode(LinkType(*link), &frame, &cfg) {
                sane(&frame, &d)?;
            }
        }
    }

    /// Each new encapsulation decodes to the flow put in, and every truncation of it decodes
    /// without a panic to a sane view or a named drop.
    #[test]
    fn new_encapsulations_round_trip_and_truncate(f in flow(), kind in 0u8..11) {
        let (link, frame, tunnel) = encapsulate(kind, &f, &ip_packet(&f));
        let d = decode(LinkType(link), &frame, &DecodeConfig::default()).unwrap();
        check(&d, &f);
        prop_assert_eq!(d.tunnel, tunnel);
        for cut in 0..frame.len() {
            let part = &frame[..cut];
            if let Ok(d) = decode(LinkType(link), part, &DecodeConfig::default()) {
                sane(part, &d)?;
            }
        }
    }
}

/// A bare ACK whose IP length counts the Ethernet padding: the capture of
/// heuristic_tcp_ack_payload.pcap's frame 85 (the handshake's third packet, IP total length 42,
/// two zero bytes), rebuilt here.
#[test]
fn ack_padding_counted_as_data_is_told_apart() {
    let mut tcp = vec![0x6b, 0x3d, 0x01, 0xbb]; // ports 27453 -> 443
    tcp.extend_from_slice(&[0xcf, 0xb7, 0x9f, 0xc8, 0x9e, 0xb2, 0x8a, 0x11]);
    tcp.extend_from_slice(&[0x50, 0x10, 0x01, 0x03, 0, 0, 0, 0]);
    tcp.extend_from_slice(&[0, 0]);
    let ip = ip_wrap(
        false,
        &[194, 226, 199, 61, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        &[35, 241, 9, 150, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        6,
        &tcp,
    );
    let frame = ethernet(&[], false, &ip);
    let d = decode(LinkType::ETHERNET, &frame, &DecodeConfig::default()).unwrap();
    let t = d.tcp.unwrap();
    assert_eq!((d.ip_len, d.payload), (42, &[0u8, 0][..]));
    assert!(t.padding_counted_as_data(d.ip_len, d.payload));
    // The same bytes with PSH set, or one of them not zero, or a bigger packet, are data; on a
    // SYN-ACK (heuristic_tcp_ack_payload.pcap's frame 180) they are padding too.
    let syn_ack = wirespeed_wire::TcpInfo { flags: 0x12, ..t };
    assert!(syn_ack.padding_counted_as_data(46, &[0, 0]));
    let psh = wirespeed_wire::TcpInfo { flags: 0x18, ..t };
    assert!(!psh.padding_counted_as_data(d.ip_len, d.payload));
    assert!(!t.padding_counted_as_data(d.ip_len, &[0, 1]));
    assert!(!t.padding_counted_as_data(47, &[0; 7]));
    assert!(!t.padding_counted_as_data(40, &[]));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Only a segment without PSH or URG, of at most 46 IP bytes, whose payload is all zero is
    /// padding.
    #[test]
    fn ack_padding_needs_every_condition(flags in any::<u8>(), ip_len in 0u16..100, payload in proptest::collection::vec(0u8..3, 0..10)) {
        let t = wirespeed_wire::TcpInfo { flags, ..Default::default() };
        let want = flags & 0x28 == 0 && ip_len <= 46
            && !payload.is_empty() && payload.iter().all(|&b| b == 0);
        prop_assert_eq!(t.padding_counted_as_data(ip_len, &payload), want);
    }
}
