//! Address-owner lists are input too (an operator's files and `ip:CIDR@Name` rules): arbitrary
//! text must load or be refused with nothing added, never crash; a list that loads must build a
//! table in which every block's first address has an owner, and lookups of any address never
//! panic.
#![no_main]

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use libfuzzer_sys::fuzz_target;
use wirespeed_classify::networks::{Cidr, NetworksBuilder};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut b = NetworksBuilder::new();
    // A rule as an operator writes it, from the first line: `CIDR@Name`.
    if let Some((cidr, app)) = text.lines().next().and_then(|l| l.split_once('@')) {
        let before = b.len();
        if b.add(cidr, app, "fuzz").is_err() {
            assert_eq!(b.len(), before);
        }
    }
    let before = b.len();
    let loaded = b.extend_csv(&text);
    match loaded {
        Ok(l) => assert_eq!(b.len(), before + l.rows),
        Err(_) => assert_eq!(b.len(), before),
    }
    let nets = b.build();
    if loaded.is_ok() {
        for net in text.lines().filter_map(|l| l.split(',').next()?.trim().parse::<Cidr>().ok()) {
            let id = nets.lookup(net.addr());
            assert!(id.is_some_and(|id| id.index() < nets.owner_count()), "{net}");
        }
    }
    let mut v6 = [0u8; 16];
    let n = data.len().min(16);
    v6[..n].copy_from_slice(&data[..n]);
    for ip in [
        IpAddr::V6(Ipv6Addr::from(v6)),
        IpAddr::V4(Ipv4Addr::new(v6[0], v6[1], v6[2], v6[3])),
    ] {
        if let Some(id) = nets.lookup(ip) {
            let (app, category) = nets.owner(id);
            assert!(!app.is_empty() && !category.is_empty());
        }
    }
});
