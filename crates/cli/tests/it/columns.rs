//! `--columns`: a record keeps only the columns named, in the record's order, and each kept
//! column's value is the one the whole record has (labels included: what a run does not
//! compute for the columns it drops changes nothing else). Checked against the whole record
//! of the same run, parsed (JSON by serde_json, CSV by the csv crate), on the corpus.

use std::collections::HashMap;
use std::path::Path;

use crate::common::{bin, demo, ok};
use serde_json::{Map, Value};

/// A JSON run's standard output: it succeeded, or some inputs were not whole (the corpus
/// has truncated captures: exit code 1).
fn stdout(inputs: &Path, extra: &[&str]) -> String {
    let out = bin()
        .args(["classify", "-q", "--workers", "2"])
        .args(extra)
        .arg(inputs)
        .output()
        .unwrap();
    assert!(
        out.status.code().is_some_and(|c| c <= 1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The records of a JSON run, by flow id.
fn json_run(inputs: &Path, extra: &[&str]) -> HashMap<u64, Map<String, Value>> {
    stdout(inputs, extra)
        .lines()
        .map(|l| {
            let v: Map<String, Value> = serde_json::from_str(l).unwrap();
            (v["flow_id"].as_u64().unwrap(), v)
        })
        .collect()
}

/// The whole record's keys, in order.
fn keys_of(r: &Map<String, Value>) -> Vec<String> {
    r.keys().cloned().collect()
}

/// Each selection's records: the same flows, the kept keys in the whole record's order, each
/// value the whole record's.
fn check(inputs: &Path, extra: &[&str], selections: &[&[&str]]) {
    let whole = json_run(inputs, extra);
    assert!(!whole.is_empty());
    let order = keys_of(whole.values().next().unwrap());
    for sel in selections {
        let list = sel.join(",");
        let mut args = extra.to_vec();
        args.extend(["--columns", &list]);
        let kept = json_run_keyless(inputs, &args);
        assert_eq!(kept.len(), whole.len(), "{list}: one record a flow");
        // In the record's order, whatever the order named.
        let want: Vec<String> = order
            .iter()
            .filter(|k| sel.contains(&k.as_str()))
            .cloned()
            .collect();
        assert_eq!(want.len(), sel.len(), "{list}: every name is a column");
        let id_at = sel.iter().position(|n| *n == "flow_id");
        for (i, r) in kept.iter().enumerate() {
            assert_eq!(keys_of(r), want, "{list}");
            match id_at {
                Some(_) => {
                    let w = &whole[&r["flow_id"].as_u64().unwrap()];
                    for (k, v) in r {
                        assert_eq!(Some(v), w.get(k), "{list}: {k} of flow {}", r["flow_id"]);
                    }
                }
                None => assert!(i < whole.len()),
            }
        }
    }
}

/// Records of a run whose records may lack `flow_id`.
fn json_run_keyless(inputs: &Path, extra: &[&str]) -> Vec<Map<String, Value>> {
    stdout(inputs, extra)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Every column but these.
fn all_but<'a>(order: &'a [String], drop: &[&str]) -> Vec<&'a str> {
    order
        .iter()
        .map(String::as_str)
        .filter(|k| !drop.contains(k))
        .collect()
}

#[test]
fn kept_columns_are_the_whole_records_on_the_corpus() {
    let Some(corpus) = wirespeed_testkit::corpus("kept_columns_are_the_whole_records") else {
        return;
    };
    let dir = corpus.pcap_dir();
    let whole = json_run(&dir, &[]);
    let order = keys_of(whole.values().next().unwrap());
    // No risk, no fingerprint, no owner: what the run then skips leaves the rest as it was.
    let no_risks = all_but(&order, &["risks", "risk_score"]);
    let no_prints = all_but(&order, &["ja3c", "ja4", "hassh"]);
    let bare = all_but(
        &order,
        &["risks", "risk_score", "ja3c", "ja4", "hassh", "ip_owner"],
    );
    check(
        &dir,
        &[],
        &[
            &[
                "flow_id", "src_ip", "src_port", "dst_ip", "dst_port", "l4", "proto",
            ],
            // Named out of order: written in the record's.
            &[
                "proto",
                "ja4",
                "flow_id",
                "app",
                "risks",
                "ja3c",
                "hassh",
                "risk_score",
            ],
            &no_risks,
            &no_prints,
            &bare,
        ],
    );
}

#[test]
fn kept_columns_with_the_optional_groups() {
    let demo = demo("columns-demo.pcap");
    check(
        &demo,
        &[
            "--features",
            "--community-id",
            "--stats",
            "dist,tcp,entropy",
        ],
        &[
            &[
                "flow_id",
                "community_id",
                "splt_ip",
                "atoz_l4",
                "c2s_ps_mean",
                "history",
            ],
            &["flow_id", "s2c_rtt_mean_us", "conn_state", "risks"],
            &["flow_id", "stats_app", "stats_score", "sni", "http_status"],
        ],
    );
}

#[test]
fn csv_header_and_columns_follow_the_record() {
    let demo = demo("columns-csv.pcap");
    let run = |extra: &[&str]| {
        let out = ok(bin()
            .args(["classify", "-q", "--workers", "1", "--format", "csv"])
            .args(extra)
            .arg(&demo));
        let mut rd = ::csv::Reader::from_reader(&out.stdout[..]);
        let h: Vec<String> = rd.headers().unwrap().iter().map(String::from).collect();
        let rows: Vec<Vec<String>> = rd
            .records()
            .map(|r| r.unwrap().iter().map(String::from).collect())
            .collect();
        (h, rows)
    };
    let (wh, wrows) = run(&[]);
    let (h, rows) = run(&["--columns", "proto,dst_port,flow_id,src_ip,sni,risks"]);
    assert_eq!(
        h,
        ["flow_id", "src_ip", "dst_port", "proto", "risks", "sni"]
    );
    assert_eq!(rows.len(), wrows.len());
    let at = |n: &str| wh.iter().position(|x| x == n).unwrap();
    let by_id: HashMap<&str, &Vec<String>> = wrows
        .iter()
        .map(|r| (r[at("flow_id")].as_str(), r))
        .collect();
    for r in &rows {
        let w = by_id[r[0].as_str()];
        for (name, v) in h.iter().zip(r) {
            assert_eq!(v, &w[at(name)], "{name}");
        }
    }
}

#[test]
fn unknown_or_unasked_columns_are_usage_errors() {
    let demo = demo("columns-bad.pcap");
    let out = bin()
        .args(["classify", "-q", "--columns", "src_ip,nosuch,proto"])
        .arg(&demo)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("\"nosuch\""), "{err}");
    // The valid names listed, those of these options.
    for n in ["flow_id", "src_ip", "risk_score", "ja4", "tls_cert_names"] {
        assert!(err.contains(n), "{n}: {err}");
    }
    assert!(
        !err.contains("community_id"),
        "not a column without its option: {err}"
    );
    let out = bin()
        .args(["classify", "-q", "--columns", "flow_id,c2s_ps_min"])
        .arg(&demo)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("c2s_ps_min") && err.contains("--stats dist"),
        "{err}"
    );
    let out = bin()
        .args(["classify", "-q", "--columns", " , "])
        .arg(&demo)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
}

/// A sink of fixed schema cannot take `--columns`: refused (exit 2) before anything is
/// written, naming the formats that can.
#[test]
fn columns_are_refused_with_a_fixed_schema_sink() {
    let pcap = demo("columns-ipfix.pcap");
    let ipfix =
        std::env::temp_dir().join(format!("wirespeed-columns-{}.ipfix", std::process::id()));
    let out = bin()
        .arg("classify")
        .arg(&pcap)
        .args(["--columns", "flow_id", "-o", "/dev/null", "--ipfix"])
        .arg(format!("file:{}", ipfix.display()))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("JSON, CSV and Parquet records only") && err.contains("--ipfix"),
        "{err}"
    );
    assert!(!ipfix.exists(), "nothing is written for a refused run");
}
