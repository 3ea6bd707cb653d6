//! The shipped tables compiled in: `build.rs` parses `data/app_networks.csv` with this crate's
//! own parser and builder and writes the lookup table's arrays as Rust source, so a start
//! copies them instead of parsing and sorting 17,399 blocks. An operator's lists are still
//! parsed at start ([`NetworksBuilder`](crate::networks::NetworksBuilder), after the text of
//! [`NETWORKS_CSV`]), with the same rules and errors.

use crate::networks::Networks;

// OWNERS, V4_STARTS, V4_OWNERS, V4_INDEX, V6_STARTS, V6_OWNERS, V6_INDEX.
include!(concat!(env!("OUT_DIR"), "/builtin_networks.rs"));

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
}
