//! Real frames cut from ../shared/corpus captures (named per case), decoded and compared with
//! the flow nDPI reports for the same capture in ../shared/corpus/flows.csv: an independent
//! reading of the same bytes.

use std::net::IpAddr;
use wirespeed_wire::{decode, DecodeConfig, LinkType, Tunnel};

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

fn addr(d: &[u8; 16], v: u8) -> IpAddr {
    if v == 4 {
        IpAddr::from([d[0], d[1], d[2], d[3]])
    } else {
        IpAddr::from(*d)
    }
}

struct Case {
    capture: &'static str,
    link: u32,
    frame: &'static str,
    proto: u8,
    src: &'static str,
    sport: u16,
    dst: &'static str,
    dport: u16,
    tunnel: Tunnel,
    vlan: u16,
}

const CASES: &[Case] = &[
    // vxlan.pcap, frame 0
    Case {
        capture: "vxlan.pcap",
        link: 1,
        frame: "000cbd063a74000cbd063a758100000508004500006c033f00004011c9e8c0a81604c0a81605edd712b500586a040800000000045700667a50aaff9a1eea692a6fcf08004500003a35b040004011d6e50a0a140408080808ad950035002617e290c6010000010000000000000866616365626f6f6b03636f6d0000010001",
        proto: 17,
        src: "10.10.20.4",
        sport: 44437,
        dst: "8.8.8.8",
        dport: 53,
        tunnel: Tunnel::Vxlan,
        vlan: 5,
    },
    // gre.pcapng, frame 0
    Case {
        capture: "gre.pcapng",
        link: 1,
        frame: "0000000000029c37f47c6e918100008e08004500016eafa50000f22f584f6d69e4fd0ab162543081880b014a98500000006a0000008cff03002145a0014638c100003f114dfbc0a80ad2c0a8672813c413c4013257d55349502f322e302031303020547279696e670d0a5669613a205349502f322e302f554450203139322e3136382e3130332e34303a353036303b72706f72743d353036303b72656365697665643d3139322e3136382e3130332e34303b6272616e63683d7a39684734624b5f41493230303041",
        proto: 17,
        src: "192.168.10.210",
        sport: 5060,
        dst: "192.168.103.40",
        dport: 5060,
        tunnel: Tunnel::Gre,
        vlan: 142,
    },
    // 4in6tunnel.pcap, frame 0
    Case {
        capture: "4in6tunnel.pcap",
        link: 1,
        frame: "000102ba768e00000049f48786dd600000000034043f22e01685eda738cc58bdf3f1aa3f22d8344aba94152aac34000000000000002a450000347bf040007f06ab1fc0a800010a0a0a01fbc701bbdfe13e82000000008002ffff7ea50000020405840103030801010402000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000",
        proto: 6,
        src: "192.168.0.1",
        sport: 64455,
        dst: "10.10.10.1",
        dport: 443,
        tunnel: Tunnel::IpInIp,
        vlan: 0,
    },
    // 4in4tunnel.pcap, frame 0
    Case {
        capture: "4in4tunnel.pcap",
        link: 1,
        frame: "000000000004a4c64f3bb39a81006658810061f9080045b80094e8580000ff0411484543239229ca2e6e45b8008000010000fe11de840a0a64190a0a6502f39f4268006c4b9a0002000004736c100000000000010000abcdabcdabcdabcdabcdabcdabcdabcdabcdabcdabcdabcdabcdabcdabcdabcdabcdabcdabcdabcdabcdabcdabcdabcdabcdabcdabcdabcdabcdabcdabcdabcdabcdabcdabcdabcdabcdabcdabcdabcdabcdabcd",
        proto: 17,
        src: "10.10.100.25",
        sport: 62367,
        dst: "10.10.101.2",
        dport: 17000,
        tunnel: Tunnel::IpInIp,
        vlan: 505,
    },
    // 6in6tunnel.pcap, frame 0
    Case {
        capture: "6in6tunnel.pcap",
        link: 1,
        frame: "ffffffffffff00000000000086dd6000000000342940200104f80004000702e081fffe52ffff200104f80004000702e081fffe529a6b60000000000c1140dead000000000000000000000000beefcafe000000000000000000000000babe753032c8000c83d258585858",
        proto: 17,
        src: "dead::beef",
        sport: 30000,
        dst: "cafe::babe",
        dport: 13000,
        tunnel: Tunnel::IpInIp,
        vlan: 0,
    },
    // dlt_ppp.pcap, frame 0
    Case {
        capture: "dlt_ppp.pcap",
        link: 9,
        frame: "0021450204cc413d40003f110d33c1a700fcc1a76464ac3301bb04b80000cfff00001d0cb712293a9b14f20cd059dca8049869c1d7004496743ac64dd1b97c5497ef3b29287aeb6d33478c587270a46a4e3c0a968741947e9f4821ef36ccf10e271c5bb9d339fe93962261a430962764a0b8a1cf9689ef35ed996e4f7a8695b4fa166bd1ef0814dd996a88994ee3ed034472f877f0f32f745f09d85a2827f1a2f896afd38e685f716b21c14e09684e45486d22dd7ab8a19f0afe9a4eeaaab4ad82155d5c916d9ce5",
        proto: 17,
        src: "193.167.0.252",
        sport: 44083,
        dst: "193.167.100.100",
        dport: 443,
        tunnel: Tunnel::None,
        vlan: 0,
    },
    // BGP_Cisco_hdlc_slarp.pcap, frame 0
    Case {
        capture: "BGP_Cisco_hdlc_slarp.pcap",
        link: 9,
        frame: "0f00080045c0002cf89240000106b6566410010264100101479400b3bcea75d1000000006002400013000000020405b4",
        proto: 6,
        src: "100.16.1.2",
        sport: 18324,
        dst: "100.16.1.1",
        dport: 179,
        tunnel: Tunnel::None,
        vlan: 0,
    },
];

#[test]
fn corpus_frames_decode_to_ndpis_flow() {
    for c in CASES {
        let frame = unhex(c.frame);
        let d = decode(LinkType(c.link), &frame, &DecodeConfig::default())
            .unwrap_or_else(|e| panic!("{}: {e:?}", c.capture));
        let (src, dst) = (addr(&d.src, d.ip_version), addr(&d.dst, d.ip_version));
        let want_src: IpAddr = c.src.parse().unwrap();
        let want_dst: IpAddr = c.dst.parse().unwrap();
        // nDPI prints the client first; the first frame may travel either way.
        let forward = (src, d.src_port, dst, d.dst_port) == (want_src, c.sport, want_dst, c.dport);
        let reverse = (dst, d.dst_port, src, d.src_port) == (want_src, c.sport, want_dst, c.dport);
        assert!(
            forward || reverse,
            "{}: got {src}:{} -> {dst}:{}",
            c.capture,
            d.src_port,
            d.dst_port
        );
        assert_eq!(d.proto, c.proto, "{}", c.capture);
        assert_eq!(d.tunnel, c.tunnel, "{}", c.capture);
        assert_eq!(d.vlan, c.vlan, "{}", c.capture);
        // The payload is a view into the frame.
        let (fs, fe) = (
            frame.as_ptr() as usize,
            frame.as_ptr() as usize + frame.len(),
        );
        let ps = d.payload.as_ptr() as usize;
        assert!(d.payload.is_empty() || (ps >= fs && ps + d.payload.len() <= fe));
    }
}

#[test]
fn tunnels_off_gives_the_outer_flow() {
    let c = &CASES[0]; // vxlan.pcap: outer UDP to port 4789
    let frame = unhex(c.frame);
    let d = decode(
        LinkType(c.link),
        &frame,
        &DecodeConfig {
            decode_tunnels: false,
        },
    )
    .unwrap();
    assert_eq!((d.proto, d.dst_port, d.tunnel), (17, 4789, Tunnel::None));
}
