//! The shipped tables compiled in: `build.rs` parses `data/app_networks.csv` with this crate's
//! own parser and builder and writes the lookup table's arrays as Rust source, so a start
//! copies them instead of parsing and sorting 17,399 blocks; and it reads
//! `data/app_hosts.csv`'s rows, checked, so a start inserts them without reading CSV. An
//! operator's lists are still parsed at start
//! ([`NetworksBuilder`](crate::networks::NetworksBuilder), after the text of [`NETWORKS_CSV`];
//! [`HostRules::load_csv`]), with the same rules and errors.

use crate::hosts::HostRules;
use crate::labels::Breed;
use crate::networks::Networks;

// OWNERS, V4_STARTS, V4_OWNERS, V4_INDEX, V6_STARTS, V6_OWNERS, V6_INDEX.
include!(concat!(env!("OUT_DIR"), "/builtin_networks.rs"));
// HOST_ROWS.
include!(concat!(env!("OUT_DIR"), "/builtin_hosts.rs"));

/// The shipped address-block list, `data/app_networks.csv`, as text: what an operator's lists
/// are loaded after.
pub const NETWORKS_CSV: &str = include_str!("../../../data/app_networks.csv");

/// The table of [`NETWORKS_CSV`] alone, built at compile time: equal to
/// `Networks::parse_csv(NETWORKS_CSV)`.
pub fn networks() -> Networks {
    Networks::from_parts(
        &OWNERS,
        (&V4_STARTS, &V4_OWNERS, &V4_INDEX),
        (&V6_STARTS, &V6_OWNERS, &V6_INDEX),
    )
}

/// The shipped host-name list, `data/app_hosts.csv`, as text.
pub const HOSTS_CSV: &str = include_str!("../../../data/app_hosts.csv");

/// The rules of [`HOSTS_CSV`] alone, from its rows compiled in: equal to
/// `HostRules::parse_csv(HOSTS_CSV)`, without reading CSV (a fifth of a one-flow run's
/// instructions before, issue 37 item 3).
pub fn hosts() -> HostRules {
    let mut h = HostRules::new();
    h.extend_checked(&HOST_ROWS);
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_compiled_table_is_the_parsed_one() {
        let parsed = Networks::parse_csv(NETWORKS_CSV).unwrap();
        let compiled = networks();
        assert_eq!(compiled.range_count(), parsed.range_count());
        assert_eq!(compiled.owner_count(), parsed.owner_count());
        assert!(compiled == parsed);
    }

    #[test]
    fn the_compiled_host_rules_are_the_parsed_ones() {
        let parsed = HostRules::parse_csv(HOSTS_CSV).unwrap();
        let compiled = hosts();
        assert_eq!(compiled.len(), parsed.len());
        assert!(compiled.len() > 1000);
        assert!(compiled.same_as(&parsed));
        // And an operator's rows after them, as the engine loads them.
        let more =
            "pattern,app,category,breed\nyoutube.,Mine,web,safe\nnew.example,New,video,fun\n";
        let (mut a, mut b) = (compiled, parsed);
        a.load_csv(more).unwrap();
        b.load_csv(more).unwrap();
        assert!(a.same_as(&b));
    }
}
