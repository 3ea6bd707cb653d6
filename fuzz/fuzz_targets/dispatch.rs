//! Fuzz the dispatcher's fast path: whenever it hashes a frame straight from its bytes, the full
//! decoder must take the same frame to a flow with the same end-points (else the two directions
//! or the packets of one flow could meet different workers).
#![no_main]

use libfuzzer_sys::fuzz_target;
use wirespeed_capture::RawPacket;
use wirespeed_engine::{rss, runtime::fast_hash};
use wirespeed_wire::{decode, DecodeConfig, LinkType};

fuzz_target!(|data: &[u8]| {
    let p = RawPacket {
        ts_ns: 0,
        wire_len: data.len() as u32,
        link: 1,
        iface: 0,
        data,
    };
    if let Some(h) = fast_hash(&p) {
        let d = decode(LinkType::ETHERNET, data, &DecodeConfig::default())
            .expect("the fast path hashed a frame the decoder drops");
        assert!(d.frag.is_none());
        let n = if d.ip_version == 4 { 4 } else { 16 };
        let full = rss::symmetric(&d.src[..n], &d.dst[..n], Some((d.src_port, d.dst_port)));
        assert_eq!(h, full);
    }
});
