//! Fuzz the operator rule readers: arbitrary text as a host rules file
//! (`hosts::HostRules::load_csv`, with and without its header) and as an nDPI `protos.txt`
//! (`protos::parse`), then every line of the input looked up as a host name in what loaded.
//! Never a panic; a host pattern `protos` accepts is one `HostRules::add` takes; what a lookup
//! returns is one of the rules' applications.
#![no_main]

use libfuzzer_sys::fuzz_target;
use wirespeed_classify::hosts::{HostRules, MAX_NAME_LEN};
use wirespeed_classify::{protos, Breed};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut rules = HostRules::new();
    if let Ok(rows) = rules.load_csv(&text) {
        assert!(rules.len() <= rows);
    }
    let with_header = format!("pattern,app,category,breed\n{text}");
    let _ = rules.load_csv(&with_header);
    if let Ok(p) = protos::parse(&text) {
        for h in &p.hosts {
            rules
                .add(&h.pattern, &h.name, "Unspecified", Breed::Acceptable)
                .expect("a host pattern protos accepts is a rule");
        }
        for ip in &p.ips {
            assert!(ip.prefix_len <= if ip.network.is_ipv4() { 32 } else { 128 });
        }
        for port in &p.ports {
            assert!(port.low >= 1 && port.low <= port.high);
        }
    }
    for name in data.split(|&b| b == b'\n') {
        if let Some(m) = rules.lookup_bytes(name) {
            assert!(m.pattern.len() <= MAX_NAME_LEN);
            assert_eq!(rules.app(m.app.id), Some(m.app));
        }
    }
});
