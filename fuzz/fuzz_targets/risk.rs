//! Fuzz the flow-risk checks (`wirespeed_risk`): hostile metadata (URLs, user
//! agents, host and DNS names, TLS versions, JA4 strings) is judged without a panic, and every
//! risk set written as text reads back as the same set. Also nDPI's protocol-defaults reader
//! (`protodefs::ProtoDefaults::parse`) on arbitrary text.
#![no_main]

use libfuzzer_sys::fuzz_target;
use wirespeed_classify::protodefs::ProtoDefaults;
use wirespeed_risk::{self as risk, assess, RiskFacts, RiskSet};
use wirespeed_classify::Breed;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = ProtoDefaults::parse(&text);
    // Fields separated by NUL: master, app, url, user agent, host, SNI, DNS names, TLS version,
    // JA4, ALPN.
    let mut parts = text.split('\0');
    let mut next = || parts.next().filter(|s| !s.is_empty());
    let (master, app) = (next().unwrap_or("HTTP"), next().unwrap_or("HTTP"));
    let num = data.first().copied().unwrap_or(0);
    let f = RiskFacts {
        l4: if num & 1 == 0 { 6 } else { 17 },
        client_port: u16::from(num) * 257,
        server_port: 443,
        master,
        app,
        category: "Web",
        breed: Breed::Unrated,
        dpi: num & 2 != 0,
        c2s_packets: u64::from(num),
        s2c_packets: u64::from(num & 4),
        url: next(),
        user_agent: next(),
        http_host: next(),
        http_method: Some("GET"),
        http_status: Some(u16::from(num) * 3),
        sni: next(),
        dns_names: next(),
        tls_version: next(),
        ja4: next(),
        alpn: next(),
        tls_cipher: Some(u16::from(num) << 2),
        c2s_tcp_flags: num,
        s2c_tcp_flags: num.rotate_left(3),
        ..RiskFacts::default()
    };
    let set = assess(&f);
    assert_eq!(RiskSet::parse(&set.to_string()), Some(set));
    let _ = set.score();
    let _ = risk::url_risk(&text);
    let _ = risk::suspicious_user_agent(&text);
    let _ = risk::is_valid_dns_name(&text);
    let _ = risk::is_numeric_host(&text);
    let _ = risk::shannon_entropy(data);
});
