//! Fuzz the policy reader (`wirespeed_act::Policy::from_toml`) against a small label registry:
//! arbitrary text is a policy or an error, never a panic; a policy read decides any flow to
//! one of its rules or a fall-back.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use wirespeed_act::{Decided, FlowFacts, Policy};
use wirespeed_risk::RiskSet;
use wirespeed_classify::{Breed, Labels, Method};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut labels = Labels::new();
    let http = labels.intern("HTTP", "HTTP", "Web", Breed::Acceptable).unwrap();
    let yt = labels.intern("TLS", "YouTube", "Media", Breed::Fun).unwrap();
    let Ok(p) = Policy::from_toml(&text, &labels) else {
        return;
    };
    for (v, src, dst) in [
        (None, IpAddr::V4(Ipv4Addr::new(192, 0, 2, 1)), IpAddr::V4(Ipv4Addr::new(198, 51, 100, 1))),
        (Some((http, Method::Dpi, 0.9)), IpAddr::V6(Ipv6Addr::LOCALHOST), IpAddr::V6(Ipv6Addr::UNSPECIFIED)),
        (Some((yt, Method::Port, 0.2)), IpAddr::V4(Ipv4Addr::BROADCAST), IpAddr::V4(Ipv4Addr::UNSPECIFIED)),
    ] {
        let risks = RiskSet::from_bits(data.iter().fold(0u64, |a, &b| a.rotate_left(7) ^ u64::from(b)));
        let f = FlowFacts { verdict: v, risks, proto: 6, src: (src, 1), dst: (dst, 65535) };
        match p.decide(&f) {
            Decided::Rule(i) => assert!(usize::from(i) < p.rules.len()),
            Decided::Unclassified | Decided::Default => {}
        }
    }
    let _ = p.dscps();
});
