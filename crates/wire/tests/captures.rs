//! More real frames cut from ../shared/corpus captures (named on each), one per link type and
//! encapsulation the first set of vectors does not cover. Expected values are nDPI's flows for
//! the same capture (../shared/corpus/flows.csv), read independently of the decoder.

mod common;

use common::unhex;
use wirespeed_wire::{decode, DecodeConfig, Decoded, LinkType, Tunnel};

/// dns.pcap, frame 3 (link type 1, 91 bytes): QinQ, then a PPPoE session.
const PPPOE_DNS: &str = concat!(
    "000000000001d494e80eadc1810001a58100031188641100556a003f00214500003d00004000401184a152b271f552b2",
    "9eb5b89700350029b67d784301000001000000000000026537087768617473617070036e65740000010001"
);

/// dtls.pcap, frame 2 (link type 1, 120 bytes, cut): QinQ, then GTP-U.
const GTPU_DTLS: &str = concat!(
    "0000000000000001020000fa81006cab8100600a080045680104880200004011d9b00a7408390aeefa330868086800f0",
    "14b830ff00e00e2c1dc7450000e09b6e4000401102620abfe30d9df01080d3920d9600cc9d2516feff00000000000000",
    "0000b7010000ab00000000000000abfefdd35f80d7ff64f0"
);

/// nats.pcap, frame 0 (link type 0, 68 bytes).
const NULL_NATS: &str = concat!(
    "020000004500004000004000400600007f0000017f000001d624107ef089cd3c00000000b002fffffe34000002043fd8",
    "010303050101080a36949e620000000004020000"
);

/// bjnp.pcap, frame 0 (link type 101, 46 bytes).
const RAW_BJNP: &str =
    "4500002c098300007911fc4ec0a8b98dc0a80111c3a721a400183443424a4e500201000017a4000000000000caeb";

/// BGP_redist.pcap, frame 0 (link type 104, 80 bytes, cut): MPLS inside Cisco HDLC.
const CHDLC_MPLS_BGP: &str = concat!(
    "0f00884700012dfe45c0009b93cc4000ff06dac4020202020404040400b3f82fd5a86c493c92f65050183fb40ea10000",
    "ffffffffffffffffffffffffffffffff0073020000005c400101024002008004"
);

/// KakaoTalk_chat.pcap, frame 0 (link type 113, 76 bytes).
const SLL_KAKAO: &str = concat!(
    "000402120000000000000000000008004500003c000040004011d2200a1852bc0abc010196300035002880a686ed0100",
    "00010000000000000461757468056b616b616f03636f6d0000010001"
);

/// someip_sd_sample.pcap, frame 0 (link type 192, 114 bytes).
const PPI_SOMEIP: &str = concat!(
    "0000100001000000080004000000000001005e0203050054afe7034008004500005400004000ff11749fc0a85849eb02",
    "0305771a771a0040e278ffff8100000000300000000301010200c0000000000000100100001000eb00000100001e0000",
    "00000000000c00090400c0a858490011c350"
);

/// ossfuzz_seed_fake_traces_4.pcapng, frame 0 (link type 228, 32 bytes).
const IPV4_OSSFUZZ: &str = "450000200001000040117cca7f0000017f000001006400c8000cc78f39180000";

/// dnscrypt-v1-and-resolver-pings.pcap, frame 1 (link type 1, 64 bytes, cut).
const FRAG_FIRST_DNSCRYPT: &str = concat!(
    "4444444444446666666666660800450005dc0a002000bd1193ee0a0000019538e42db29a01bb06046c557f4401000001",
    "00000000000101320d646e7363727970"
);

/// dnscrypt-v1-and-resolver-pings.pcap, frame 2 (link type 1, 94 bytes).
const FRAG_LATER_DNSCRYPT: &str = concat!(
    "4444444444446666666666660800450000500a0000b9bd11b8c10a0000019538e42d0000000000000000000000000000",
    "00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
);

/// android.pcap, frame 64 (link type 1, 90 bytes).
const HBH_MLD_ANDROID: &str = concat!(
    "3333000000164c6af69ff62786dd600000000024000100000000000000000000000000000000ff020000000000000000",
    "0000000000163a000502000001008f0078c30000000104000000ff0200000000000000000001ff9ff627"
);

fn run(link: u32, hex: &str) -> (Vec<u8>, Decoded<'static>) {
    let f: &'static [u8] = Box::leak(unhex(hex).into_boxed_slice());
    let d = decode(LinkType(link), f, &DecodeConfig::default())
        .unwrap_or_else(|e| panic!("link {link}: {e:?}"));
    (f.to_vec(), d)
}

fn v4(a: [u8; 4]) -> [u8; 16] {
    let mut x = [0; 16];
    x[..4].copy_from_slice(&a);
    x
}

/// (link, frame, proto, src, sport, dst, dport, vlan, tunnel)
type Case = (
    u32,
    &'static str,
    u8,
    [u8; 4],
    u16,
    [u8; 4],
    u16,
    u16,
    Tunnel,
);

#[test]
fn ipv4_flows_match_ndpi() {
    let cases: [Case; 8] = [
        (
            1,
            PPPOE_DNS,
            17,
            [82, 178, 113, 245],
            47255,
            [82, 178, 158, 181],
            53,
            785,
            Tunnel::None,
        ),
        (
            1,
            GTPU_DTLS,
            17,
            [10, 191, 227, 13],
            54162,
            [157, 240, 16, 128],
            3478,
            10,
            Tunnel::GtpU,
        ),
        (
            0,
            NULL_NATS,
            6,
            [127, 0, 0, 1],
            54820,
            [127, 0, 0, 1],
            4222,
            0,
            Tunnel::None,
        ),
        (
            101,
            RAW_BJNP,
            17,
            [192, 168, 185, 141],
            50087,
            [192, 168, 1, 17],
            8612,
            0,
            Tunnel::None,
        ),
        (
            104,
            CHDLC_MPLS_BGP,
            6,
            [2, 2, 2, 2],
            179,
            [4, 4, 4, 4],
            63535,
            0,
            Tunnel::None,
        ),
        (
            113,
            SLL_KAKAO,
            17,
            [10, 24, 82, 188],
            38448,
            [10, 188, 1, 1],
            53,
            0,
            Tunnel::None,
        ),
        (
            192,
            PPI_SOMEIP,
            17,
            [192, 168, 88, 73],
            30490,
            [235, 2, 3, 5],
            30490,
            0,
            Tunnel::None,
        ),
        (
            228,
            IPV4_OSSFUZZ,
            17,
            [127, 0, 0, 1],
            100,
            [127, 0, 0, 1],
            200,
            0,
            Tunnel::None,
        ),
    ];
    for (i, (link, hex, proto, src, sport, dst, dport, vlan, tunnel)) in
        cases.into_iter().enumerate()
    {
        let (f, d) = run(link, hex);
        assert_eq!(d.ip_version, 4, "case {i}");
        assert_eq!(
            (d.proto, d.src, d.dst),
            (proto, v4(src), v4(dst)),
            "case {i}"
        );
        assert_eq!((d.src_port, d.dst_port), (sport, dport), "case {i}");
        assert_eq!((d.vlan, d.tunnel), (vlan, tunnel), "case {i}");
        // The innermost IP header is where l3_offset says.
        let l3 = d.l3_offset as usize;
        assert_eq!(f[l3] >> 4, 4, "case {i}");
        assert_eq!(f[l3 + 12..l3 + 16], src, "case {i}");
        assert_eq!(d.tcp.is_some(), proto == 6, "case {i}");
    }
    // nats.pcap frame 0 is the SYN.
    let (_, d) = run(0, NULL_NATS);
    assert_eq!(d.tcp.map(|t| t.flags), Some(0x02));
    assert!(d.payload.is_empty());
}

#[test]
fn ipv4_fragments_from_dnscrypt_capture() {
    let (_, first) = run(1, FRAG_FIRST_DNSCRYPT);
    assert_eq!((first.src_port, first.dst_port), (45722, 443));
    let ff = first.frag.expect("first fragment");
    assert_eq!((ff.offset, ff.more), (0, true));
    assert_eq!(first.ip_len, 1500);
    let (_, later) = run(1, FRAG_LATER_DNSCRYPT);
    let lf = later.frag.expect("later fragment");
    assert_eq!((lf.id, lf.offset, lf.more), (ff.id, 1480, false));
    assert_eq!((later.proto, later.src_port, later.dst_port), (17, 0, 0));
    assert_eq!((later.src, later.dst), (first.src, first.dst));
    assert_eq!(later.payload.len(), 80 - 20);
}

#[test]
fn ipv6_hop_by_hop_then_icmpv6() {
    // android.pcap: an MLDv2 report from :: to ff02::16 behind a hop-by-hop header.
    let (_, d) = run(1, HBH_MLD_ANDROID);
    let mut dst = [0u8; 16];
    dst[..2].copy_from_slice(&[0xff, 0x02]);
    dst[15] = 0x16;
    assert_eq!((d.ip_version, d.proto, d.src, d.dst), (6, 58, [0; 16], dst));
    assert_eq!((d.src_port, d.dst_port, d.icmp), (0, 0, Some((143, 0))));
}

// Frames whose expected values were read by tshark 4.0 (`tshark -T fields`), independently of
// the decoder: encapsulations the first sets do not cover.

/// teredo.pcap, frame 2 (link type 1, 151 bytes): a Teredo server's Router Advertisement to a
/// client, behind the authentication indicator (empty id and value) and an origin indication
/// (port 52513, 185.6.192.185). tshark: fe80::8000:f227:3d77:e3b3 -> fe80::ffff:ffff:fffe,
/// ICMPv6 type 134 code 0, hop limit 255.
const TEREDO_AUTH_ORIGIN_RA: &str = concat!(
    "001b170001156c416a8c808908004500008931be000072111cf8c2881c4c0a70106a0dd8cd2100755f6e00010000",
    "b11b3fea46a9afe900000032de46f93f466000000000303afffe800000000000008000f2273d77e3b3fe80000000",
    "0000000000fffffffffffe8600649d0000000000003a98000007d003044040ffffffffffffffff00000000200100",
    "00c2881c4cff00000000200100",
);

/// teredo.pcap, frame 15 (link type 1, 90 bytes): a bubble (no payload, next header 59) behind an
/// origin indication. tshark: fe80::8000:f227:3d77:e3b3 -> 2001:0:c288:1c4c:20f3:359b:46f9:3f46,
/// hop limit 21.
const TEREDO_ORIGIN_BUBBLE: &str = concat!(
    "001b170001156c416a8c808908004500004c31c4000072111d56c2881c4c0a7010430dd8ca64003811d90000f227",
    "3d77e3b36000000000003b15fe800000000000008000f2273d77e3b320010000c2881c4c20f3359b46f93f46",
);

/// ajp.pcap, frame 8 (link type 1, 86 bytes): Cisco FabricPath (FTag 256, TTL 32), then a
/// classical frame on VLAN 7. tshark: 172.29.9.147:8009 -> 172.29.9.146:38856, TCP ACK, IP TTL
/// 64.
const FABRICPATH_AJP: &str = concat!(
    "020abd000000020abc00000089034020005056835d58005056838ef381000007080045000034c160400040060e04",
    "ac1d0993ac1d09921f4997c893a02eb972c5db35801000727ccf00000101080a1e57efd94e9c69e8",
);

fn v6(s: &str) -> [u8; 16] {
    s.parse::<std::net::Ipv6Addr>().unwrap().octets()
}

#[test]
fn teredo_frames_match_tshark() {
    let (f, d) = run(1, TEREDO_AUTH_ORIGIN_RA);
    assert_eq!((d.ip_version, d.proto, d.tunnel), (6, 58, Tunnel::Teredo));
    assert_eq!(
        (d.src, d.dst),
        (v6("fe80::8000:f227:3d77:e3b3"), v6("fe80::ffff:ffff:fffe"))
    );
    assert_eq!((d.icmp, d.ttl, d.ip_len), (Some((134, 0)), 255, 40 + 48));
    // Ethernet, IPv4, UDP, authentication (4 + 0 + 0 + 9), origin indication (8).
    assert_eq!(d.l3_offset as usize, 14 + 20 + 8 + 13 + 8);
    assert_eq!(f.len(), d.l3_offset as usize + 40 + 48);

    let (_, d) = run(1, TEREDO_ORIGIN_BUBBLE);
    assert_eq!((d.ip_version, d.proto, d.tunnel), (6, 59, Tunnel::Teredo));
    assert_eq!(
        (d.src, d.dst),
        (
            v6("fe80::8000:f227:3d77:e3b3"),
            v6("2001:0:c288:1c4c:20f3:359b:46f9:3f46")
        )
    );
    assert_eq!((d.src_port, d.dst_port, d.ttl, d.ip_len), (0, 0, 21, 40));
    assert!(d.payload.is_empty());
}

#[test]
fn fabricpath_frame_matches_tshark() {
    let (_, d) = run(1, FABRICPATH_AJP);
    assert_eq!((d.ip_version, d.proto), (4, 6));
    assert_eq!(
        (d.src, d.src_port, d.dst, d.dst_port),
        (v4([172, 29, 9, 147]), 8009, v4([172, 29, 9, 146]), 38856)
    );
    assert_eq!((d.vlan, d.tunnel, d.ttl), (7, Tunnel::None, 64));
    assert_eq!(d.l3_offset, 16 + 18);
    assert_eq!(d.tcp.map(|t| t.flags), Some(0x10));
    assert!(d.payload.is_empty());
}
