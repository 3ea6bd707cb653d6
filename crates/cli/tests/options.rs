//! Option files are bounded: a file (or device) past the cap is refused with a message naming
//! it, the cap and what it was for, before anything else is read; a pattern file of one very
//! long pattern (the worst case for an automaton's size) still builds and runs.

use std::process::Command;

mod common;
use common::{bin, demo, ok, temp};

fn run(cmd: &mut Command) -> (i32, String) {
    let out = cmd.output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn an_endless_option_file_is_refused_with_its_cap() {
    let pcap = demo("options-demo.pcap");
    for (flag, what, cap) in [
        ("--match", "pattern file", "16 MiB"),
        ("--model", "model", "64 MiB"),
        ("--signatures", "signature file", "4 MiB"),
    ] {
        let (code, err) = run(bin()
            .arg("classify")
            .arg(&pcap)
            .args([flag, "/dev/zero", "-q"]));
        assert_eq!(code, 2, "{flag}: {err}");
        assert!(
            err.contains("/dev/zero") && err.contains(what) && err.contains(cap),
            "{flag}: {err}"
        );
    }
}

#[test]
fn one_long_pattern_builds_and_runs() {
    let pcap = demo("options-long.pcap");
    let pats = temp("long-pattern.txt");
    std::fs::write(&pats, format!("{}\nGET /\n", "A".repeat(262_144))).unwrap();
    let out = ok(bin()
        .arg("classify")
        .arg(&pcap)
        .arg("--match")
        .arg(&pats)
        .arg("-q"));
    // The demo's HTTP request holds pattern 1.
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("\"matches\":\"1\""), "{text}");
}

/// Without the cargo feature `parquet`, `--format parquet` says how to build it (exit 2, before
/// anything is read or written).
#[cfg(not(feature = "parquet"))]
#[test]
fn parquet_without_the_feature_says_how_to_build_it() {
    let pcap = demo("options-parquet.pcap");
    let out = temp("not-built.parquet");
    let (code, err) = run(bin()
        .arg("classify")
        .arg(&pcap)
        .args(["--format", "parquet", "-o"])
        .arg(&out));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("built without Parquet support")
            && err.contains("cargo build --release --features parquet"),
        "{err}"
    );
    assert!(!out.exists());
}
