//! Compiles the shipped address-block list, `data/app_networks.csv`, into the lookup table's
//! arrays (`$OUT_DIR/builtin_networks.rs`), so a start loads it without parsing 17,000 rows
//! and sorting them (about a third of a start's instructions before). It runs the library's
//! own parser and builder, the very source files (`src/csvrows.rs`, `src/networks.rs`), so the
//! table is the one the runtime would build from the same text; `builtin::tests` checks it.

#[allow(dead_code, unused_imports)]
#[path = "src/csvrows.rs"]
mod csvrows;
#[allow(dead_code, unused_imports)]
#[path = "src/networks.rs"]
mod networks;

use std::path::Path;

fn main() {
    let csv = "../../data/app_networks.csv";
    for f in [csv, "src/csvrows.rs", "src/networks.rs", "build.rs"] {
        println!("cargo:rerun-if-changed={f}");
    }
    let text = std::fs::read_to_string(csv).unwrap_or_else(|e| panic!("{csv}: {e}"));
    let nets = networks::Networks::parse_csv(&text).unwrap_or_else(|e| panic!("{csv}: {e}"));
    let mut out = String::from("// Written by build.rs from data/app_networks.csv.\n");
    nets.write_source(&mut out);
    let out_dir = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    let path = Path::new(&out_dir).join("builtin_networks.rs");
    std::fs::write(&path, out).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
}
