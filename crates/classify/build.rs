//! Compiles the shipped address-block list, `data/app_networks.csv`, into the lookup table's
//! arrays (`$OUT_DIR/builtin_networks.rs`), so a start loads it without parsing 17,000 rows
//! and sorting them (about a third of a start's instructions before). It runs the library's
//! own parser and builder, the very source files (`src/csvrows.rs`, `src/networks.rs`), so the
//! table is the one the runtime would build from the same text; `builtin::tests` checks it.
//!
//! The shipped host-name list, `data/app_hosts.csv`, is compiled too
//! (`$OUT_DIR/builtin_hosts.rs`): its rows as (pattern, application, nDPI's category name,
//! breed), read and checked once here, so that a start inserts them without reading CSV,
//! checking fields and looking names up (two thirds of the 7 M instructions loading the list
//! took, issue 37 item 3). The list holds no quotes (a field here is a plain split on commas,
//! as `csvrows::tests` checks the runtime reader gives); `builtin::tests` checks the rules
//! built from these rows are those `HostRules::parse_csv` builds from the text.

#[allow(dead_code)]
#[path = "src/category.rs"]
mod category;
#[allow(dead_code, unused_imports)]
#[path = "src/csvrows.rs"]
mod csvrows;
#[allow(dead_code, unused_imports)]
#[path = "src/networks.rs"]
mod networks;

use std::path::Path;

fn main() {
    let csv = "../../data/app_networks.csv";
    let hosts = "../../data/app_hosts.csv";
    for f in [
        csv,
        hosts,
        "src/csvrows.rs",
        "src/networks.rs",
        "src/category.rs",
        "build.rs",
    ] {
        println!("cargo:rerun-if-changed={f}");
    }
    let text = std::fs::read_to_string(csv).unwrap_or_else(|e| panic!("{csv}: {e}"));
    let nets = networks::Networks::parse_csv(&text).unwrap_or_else(|e| panic!("{csv}: {e}"));
    let mut out = String::from("// Written by build.rs from data/app_networks.csv.\n");
    nets.write_source(&mut out);
    let out_dir = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    let path = Path::new(&out_dir).join("builtin_networks.rs");
    std::fs::write(&path, out).unwrap_or_else(|e| panic!("{}: {e}", path.display()));

    let text = std::fs::read_to_string(hosts).unwrap_or_else(|e| panic!("{hosts}: {e}"));
    let out = host_rows(&text).unwrap_or_else(|e| panic!("{hosts}: {e}"));
    let path = Path::new(&out_dir).join("builtin_hosts.rs");
    std::fs::write(&path, out).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
}

/// `HOST_ROWS`, the rows of the host-name list after its header, as Rust source.
fn host_rows(text: &str) -> Result<String, String> {
    // The spelling of the list's breeds: `Breed`'s variant names, lower case, `_` between
    // words.
    const BREEDS: [&str; 8] = [
        "Unrated",
        "Safe",
        "Acceptable",
        "Fun",
        "Unsafe",
        "PotentiallyDangerous",
        "Dangerous",
        "TrackerAds",
    ];
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut rows = String::new();
    let mut n = 0;
    let mut header = false;
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let at = |why: String| format!("line {}: {why}", i + 1);
        if line.contains('"') {
            return Err(at(
                "a quote: this build reads the list as a plain comma split".into(),
            ));
        }
        let f: Vec<&str> = line.split(',').map(str::trim).collect();
        if !header {
            if f != ["pattern", "app", "category", "breed"] {
                return Err(at(format!("not the header: {line:?}")));
            }
            header = true;
            continue;
        }
        let [pattern, app, category, breed] = f[..] else {
            return Err(at(format!("{} fields", f.len())));
        };
        let category =
            category::parse(category).ok_or_else(|| at(format!("category {category:?}")))?;
        let breed = BREEDS
            .iter()
            .find(|b| b.eq_ignore_ascii_case(&breed.replace('_', "")))
            .ok_or_else(|| at(format!("breed {breed:?}")))?;
        rows.push_str(&format!(
            "    ({pattern:?}, {app:?}, {category:?}, Breed::{breed}),\n"
        ));
        n += 1;
    }
    Ok(format!(
        "// Written by build.rs from data/app_hosts.csv.\n\
         pub(crate) static HOST_ROWS: [(&str, &str, &str, Breed); {n}] = [\n{rows}];\n"
    ))
}
