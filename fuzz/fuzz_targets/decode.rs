//! Fuzz the frame decoder: the first byte picks a link type, the rest is the frame. Any bytes
//! must decode or give a named drop reason — never a panic — and the payload must lie inside
//! the frame.
#![no_main]

use libfuzzer_sys::fuzz_target;
use wirespeed_wire::{decode, DecodeConfig, LinkType};

const LINKS: &[u32] = &[
    0, 1, 9, 12, 14, 51, 101, 104, 105, 108, 113, 119, 127, 163, 192, 228, 229, 276,
];

fuzz_target!(|data: &[u8]| {
    let Some((&pick, frame)) = data.split_first() else {
        return;
    };
    let link = LinkType(LINKS[pick as usize % LINKS.len()]);
    for tunnels in [true, false] {
        let cfg = DecodeConfig {
            decode_tunnels: tunnels,
        };
        if let Ok(d) = decode(link, frame, &cfg) {
            let start = frame.as_ptr() as usize;
            let p = d.payload.as_ptr() as usize;
            assert!(
                d.payload.is_empty() || (p >= start && p + d.payload.len() <= start + frame.len())
            );
        }
    }
});
