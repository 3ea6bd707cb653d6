//! Fuzz the NFQUEUE message walk (`wirespeed_live::nfqueue::parse`): any datagram gives packets
//! that lie inside it, never a panic; what it finds, answered with a DSCP rewrite of the
//! packet's bytes (`wirespeed_act::dscp::set_dscp`), never a panic either.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut buf = data.to_vec();
    let mut st = wirespeed_live::nfqueue::ParseStats::default();
    let mut found = Vec::new();
    wirespeed_live::nfqueue::parse(&buf, 0, &mut st, &mut |p| found.push(p));
    assert!(found.len() <= data.len() / 16);
    for p in found {
        let (o, l) = (p.off as usize, p.len as usize);
        assert!(o + l <= buf.len());
        let d = buf.get(o).copied().unwrap_or(0);
        let _ = wirespeed_act::dscp::set_dscp(&mut buf[o..o + l], d);
    }
});
