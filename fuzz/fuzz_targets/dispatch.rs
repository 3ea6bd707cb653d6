//! Fuzz the dispatcher's fast path: whenever it hashes a frame straight from its bytes, the full
//! decoder must take the same frame to a flow with the same end-points (else the two directions
//! or the packets of one flow could meet different workers). And its watch of FTP's announced
//! connections: any bytes as an FTP control connection's lines, from either side, then packets
//! of any end-points, never panic, and a lookup of any end-point returns once the other worker
//! has run everything.
#![no_main]

use libfuzzer_sys::fuzz_target;
use wirespeed_capture::RawPacket;
use std::net::{IpAddr, Ipv4Addr};
use std::sync::Arc;
use wirespeed_engine::expect::Expectations;
use wirespeed_engine::{rss, runtime::fast_hash, runtime::watch::Watch};
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
    let t = Arc::new(Expectations::with_workers(2, 0));
    let mut watch = Watch::new(t.clone());
    t.begin(0);
    watch.packet(a, b, 40000, 21, data, 1, 1);
    watch.packet(b, a, 21, 40000, data, 1, 2);
    let port = |k: usize| data.get(k..k + 2).map_or(1, |p| u16::from_be_bytes([p[0], p[1]]));
    for (i, (s, d, sp, dp)) in [(a, b, port(0), port(2)), (b, a, port(4), port(6))]
        .into_iter()
        .enumerate()
    {
        if !watch.idle(sp, dp) {
            watch.packet(s, d, sp, dp, data, i, 3 + i as u64);
        }
    }
    t.progress(1, u64::MAX);
    let _ = t.take(0, a, b, port(2), 0, 10);
    let _ = t.take(0, b, a, port(4), 0, 10);
});
