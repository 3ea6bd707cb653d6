//! Fuzz the walk over a TPACKET_V3 ring block: any bytes give packets inside the block, never a
//! panic, and at most one per 32 bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let start = data.as_ptr() as usize;
    let mut n = 0;
    for (p, _) in wirespeed_live::block_packets(data, 1) {
        let s = p.data.as_ptr() as usize;
        assert!(p.data.is_empty() || (s >= start && s + p.data.len() <= start + data.len()));
        n += 1;
    }
    assert!(n <= data.len() / 32);
});
