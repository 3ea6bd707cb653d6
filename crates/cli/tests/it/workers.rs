//! `--workers`: the same records whatever the number of workers, one CSV header, counters merged.

use std::path::PathBuf;

use crate::common::{bin, temp, worst_case};

/// The lines of standard output, and standard error.
fn classify(args: &[&str], file: &PathBuf) -> (Vec<String>, String) {
    let out = bin().arg("classify").args(args).arg(file).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{err}");
    let text = String::from_utf8(out.stdout).unwrap();
    (text.lines().map(str::to_string).collect(), err)
}

#[test]
fn csv_with_three_workers_has_one_header_and_the_same_rows() {
    let p = worst_case("wc.pcap", 3000, 512);
    let (one, err1) = classify(&["--format", "csv", "--workers", "1"], &p);
    // --verbose: the dispatcher's lines are engine internals, shown only when asked.
    let (three, err3) = classify(
        &["--format", "csv", "--workers", "3", "--pin", "--verbose"],
        &p,
    );
    assert_eq!(one.len(), 3001);
    assert_eq!(three.len(), one.len());
    // The header first, once.
    assert_eq!(three[0], one[0]);
    assert_eq!(three.iter().filter(|l| **l == one[0]).count(), 1);
    // Whole rows, `flow_id` (the third column: unique in the run, each flow's first packet's
    // number in the input) included.
    let rows = |v: &[String]| -> Vec<String> {
        let ids: std::collections::HashSet<&str> =
            v.iter().map(|r| r.split(',').nth(2).unwrap()).collect();
        assert_eq!(ids.len(), v.len(), "flow ids repeat");
        v.to_vec()
    };
    let (mut a, mut b) = (rows(&one[1..]), rows(&three[1..]));
    a.sort();
    b.sort();
    assert_eq!(a, b);
    // The summary's counters are merged: the same packet and flow totals, and the dispatcher's line.
    let totals = |e: &str| {
        e.lines()
            .filter(|l| {
                l.starts_with("packets:") || l.starts_with("  UDP") || l.starts_with("flows:")
            })
            .map(|l| l.replace(char::is_whitespace, ""))
            .map(|l| l.split("peak").next().unwrap_or("").to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(totals(&err1), totals(&err3));
    assert!(
        err3.contains("dispatch: 3 workers sharing one scan of the file"),
        "{err3}"
    );
    // The same through a reader thread, which drops nothing from a file.
    let (r, err_r) = classify(
        &[
            "--format",
            "csv",
            "--workers",
            "2",
            "--reader-thread",
            "--verbose",
        ],
        &p,
    );
    let mut c = rows(&r[1..]);
    c.sort();
    assert_eq!(r[0], one[0]);
    assert_eq!(a, c);
    assert_eq!(totals(&err1), totals(&err_r));
    assert!(err_r.contains("dispatch: 2 workers"), "{err_r}");
    assert!(
        err_r.contains("0 dropped between reader and workers"),
        "{err_r}"
    );
}

#[test]
fn bad_worker_counts_are_usage_errors() {
    let p = temp("none.pcap");
    for w in ["0", "100000"] {
        let out = bin()
            .args(["classify", "--workers", w])
            .arg(&p)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&out.stderr).contains("--workers"));
    }
}

/// Issue 33: `--ordered` writes the records by `flow_id`, so two runs with two workers give the
/// same bytes, whatever the dispatch key, and the same bytes as one worker.
#[test]
fn ordered_runs_give_the_same_bytes() {
    let p = worst_case("wc-ordered.pcap", 3000, 512);
    let run = |args: &[&str]| {
        let out = bin()
            .args(["classify", "--quiet", "--ordered"])
            .args(args)
            .arg(&p)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        out.stdout
    };
    let base = run(&["--workers", "2", "--dispatch-seed", "1"]);
    assert_eq!(base.iter().filter(|&&b| b == b'\n').count(), 3000);
    for args in [
        &["--workers", "2", "--dispatch-seed", "2"][..],
        &["--workers", "2"],
        &["--workers", "3", "--reader-thread"],
        &["--workers", "1"],
    ] {
        assert!(run(args) == base, "{args:?}");
    }
    // CSV: the header once, first, then the rows in the same order.
    let csv = run(&["--workers", "2", "--format", "csv"]);
    let text = String::from_utf8(csv).unwrap();
    assert!(text.starts_with("source,pcap,flow_id,"), "{text:.80}");
    assert_eq!(text.lines().filter(|l| l.starts_with("source,")).count(), 1);
    let ids: Vec<u64> = text
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(2).unwrap().parse().unwrap())
        .collect();
    assert!(ids.windows(2).all(|w| w[0] < w[1]));
}

/// Interim records (`--active-timeout`) are the same for any number of workers and from run to
/// run: written at a flow's own packets, not when the sweep came by (two workers wrote 19,767
/// to 20,828 records of the corpus with `--active-timeout 1` from run to run, one worker
/// 25,771). Long captures of the corpus, ordered output compared byte for byte.
#[test]
fn interim_records_do_not_depend_on_workers_or_runs() {
    let Some(corpus) = wirespeed_testkit::corpus("interim_records_do_not_depend_on_workers") else {
        return;
    };
    let files: Vec<PathBuf> = corpus.pcaps().into_iter().take(120).collect();
    let run = |args: &[&str]| {
        let out = bin()
            .args(["classify", "--quiet", "--ordered", "--active-timeout", "1"])
            .args(args)
            .args(&files)
            .output()
            .unwrap();
        assert!(matches!(out.status.code(), Some(0 | 1)));
        out.stdout
    };
    let one = run(&["--workers", "1"]);
    let interims = String::from_utf8_lossy(&one)
        .lines()
        .filter(|l| l.contains("\"end_reason\":\"active\""))
        .count();
    assert!(interims > 100, "{interims} interim records");
    for args in [
        &["--workers", "2"][..],
        &["--workers", "2"],
        &["--workers", "3", "--reader-thread"],
        &["--workers", "2", "--batch", "7"],
    ] {
        assert!(run(args) == one, "{args:?}");
    }
}

/// `--learn-stats` (issue 38 item 3): the link model learns at the epochs, so the records are
/// the same bytes for any number of workers; and it changes some statistical verdicts of the
/// corpus (otherwise this test would prove nothing).
#[test]
fn learned_stats_records_do_not_depend_on_workers() {
    let Some(corpus) = wirespeed_testkit::corpus("learned_stats_records_do_not_depend_on_workers")
    else {
        return;
    };
    let files: Vec<PathBuf> = corpus.pcaps().into_iter().take(120).collect();
    let run = |args: &[&str]| {
        let out = bin()
            .args(["classify", "--quiet", "--ordered"])
            .args(args)
            .args(&files)
            .output()
            .unwrap();
        assert!(matches!(out.status.code(), Some(0 | 1)));
        out.stdout
    };
    let on = ["--learn-stats", "--learn-stats-weight", "16"];
    let one = run(&[&on[..], &["--workers", "1"]].concat());
    for args in [
        &["--workers", "2"][..],
        &["--workers", "3", "--reader-thread"],
        &["--workers", "2", "--batch", "7"],
    ] {
        assert!(run(&[&on[..], args].concat()) == one, "{args:?}");
    }
    let off = run(&["--workers", "1"]);
    assert_eq!(
        off.iter().filter(|&&b| b == b'\n').count(),
        one.iter().filter(|&&b| b == b'\n').count()
    );
    assert!(off != one, "the link model changed no statistical verdict");
}
