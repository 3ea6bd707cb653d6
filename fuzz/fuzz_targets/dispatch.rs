//! Fuzz the dispatcher's fast path: whenever it hashes a frame straight from its bytes, the full
//! decoder must take the same frame to a flow with the same end-points (else the two directions
//! or the packets of one flow could meet different workers). And its FTP routes: any bytes as an
//! FTP control connection's lines, from either side, then a packet of any end-points, always
//! give one of the workers.
#![no_main]

use libfuzzer_sys::fuzz_target;
use wirespeed_capture::RawPacket;
use std::net::{IpAddr, Ipv4Addr};
use wirespeed_engine::{rss, runtime::fast_hash, runtime::steer::{Steer, PLAN}};
use wirespeed_wire::{decode, DecodeConfig, LinkType};

fuzz_target!(|data: &[u8]| {
    let p = RawPacket {
        ts_ns: 0,
        wire_len: data.len() as u32,
        link: 1,
        iface: 0,
        data,
    };
    let key = rss::DispatchKey::from_seed(data.first().copied().unwrap_or(0) as u64);
    if let Some(h) = fast_hash(&key, &p) {
        let d = decode(LinkType::ETHERNET, data, &DecodeConfig::default())
            .expect("the fast path hashed a frame the decoder drops");
        assert!(d.frag.is_none());
        let n = if d.ip_version == 4 { 4 } else { 16 };
        let full = key.hash(&d.src[..n], &d.dst[..n], (d.src_port, d.dst_port));
        assert_eq!(h, full);
    }
    let (a, b) = (
        IpAddr::V4(Ipv4Addr::new(192, 0, 2, 1)),
        IpAddr::V4(Ipv4Addr::new(192, 0, 2, 2)),
    );
    let mut steer = Steer::default();
    steer.learn(a, b, 40000, 21, data, 1);
    steer.learn(b, a, 21, 40000, data, 1);
    let port = |k: usize| data.get(k..k + 2).map_or(1, |p| u16::from_be_bytes([p[0], p[1]]));
    for (s, d, sp, dp) in [(a, b, port(0), port(2)), (b, a, port(4), port(6))] {
        // One of the two workers, or (a packet of port 21 before the plan) the hash's worker
        // with the flag that asks the caller to plan.
        assert!(steer.route(s, d, sp, dp, 0) & !PLAN < 2);
    }
});
