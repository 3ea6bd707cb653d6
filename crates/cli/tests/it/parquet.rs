//! `--format parquet` (cargo feature `parquet`), judged by an independent reader: pyarrow reads
//! the file the corpus makes, and every row equals the JSON record of the same flow, column by
//! column; the columns have the types docs/SCHEMA.md gives. Skipped, saying so, where Python
//! lacks pyarrow (CI installs it, and fails without it).
#![cfg(feature = "parquet")]

use std::collections::HashMap;
use std::path::Path;
use std::process::{Command, Output};

use crate::common::{bin, demo, python_module, temp};

type Record = serde_json::Map<String, serde_json::Value>;

/// The schema (column → pyarrow's type name), the number of row groups and the rows of a
/// Parquet file as pyarrow reads it; timestamps as integers (their µs).
fn pyarrow_read(path: &Path) -> (HashMap<String, String>, u64, Vec<Record>) {
    // Lines joined by hand: a string continuation would strip Python's indentation.
    let script = [
        "import sys, json",
        "import pyarrow as pa, pyarrow.parquet as pq",
        "f = pq.ParquetFile(sys.argv[1])",
        "t = f.read()",
        "schema = {x.name: str(x.type) for x in t.schema}",
        "print(json.dumps({'schema': schema, 'row_groups': f.metadata.num_row_groups}))",
        "for i, x in enumerate(t.schema):",
        "    if pa.types.is_timestamp(x.type):",
        "        t = t.set_column(i, x.name, t.column(i).cast(pa.int64()))",
        "for r in t.to_pylist():",
        "    print(json.dumps(r))",
    ]
    .join("\n");
    let out = Command::new("python3")
        .args(["-c", &script])
        .arg(path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "pyarrow: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let mut lines = text.lines();
    let head: serde_json::Value = serde_json::from_str(lines.next().unwrap()).unwrap();
    let schema = head["schema"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), v.as_str().unwrap().to_string()))
        .collect();
    let rows = lines.map(|l| serde_json::from_str(l).unwrap()).collect();
    (schema, head["row_groups"].as_u64().unwrap(), rows)
}

/// JSON lines, each an object.
fn json_records(path: &Path) -> Vec<Record> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// `classify` over `inputs` with `args`; exit 0, or 1 for the corpus's damaged capture.
fn classify(inputs: &[&Path], args: &[&str], out: &Path) -> Output {
    let run = bin()
        .arg("classify")
        .args(inputs)
        .args(args)
        .arg("-o")
        .arg(out)
        .output()
        .unwrap();
    assert!(
        run.status.code().is_some_and(|c| c <= 1),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    run
}

/// Parquet's value equals JSON's: numbers as numbers (the Parquet column holds JSON's rounded
/// value), times within 1 µs of JSON's seconds, text and lists as they are.
fn same(column: &str, pq: &serde_json::Value, js: &serde_json::Value) -> bool {
    use serde_json::Value::Number;
    match (pq, js) {
        (Number(us), Number(s)) if column == "first_ts" || column == "last_ts" => {
            (us.as_f64().unwrap() - s.as_f64().unwrap() * 1e6).abs() <= 1.0
        }
        (Number(a), Number(b)) => match (a.as_u64(), b.as_u64()) {
            (Some(a), Some(b)) => a == b,
            _ => a.as_f64() == b.as_f64(),
        },
        _ => pq == js,
    }
}

#[test]
fn every_corpus_row_equals_its_json_record() {
    let Some(corpus) = wirespeed_testkit::corpus("parquet_corpus") else {
        return;
    };
    if !python_module("parquet_corpus", "pyarrow") {
        return;
    }
    let dir = corpus.pcap_dir();
    // Every optional group of columns, two workers, row groups of 1,000 records.
    let opts = [
        "--workers",
        "2",
        "--community-id",
        "--features",
        "--stats",
        "dist,tcp",
    ];
    let (json, parquet) = (temp("corpus.jsonl"), temp("corpus.parquet"));
    classify(&[&dir], &opts, &json);
    let run = classify(
        &[&dir],
        &[
            &opts[..],
            &["--format", "parquet", "--parquet-row-group", "1000"],
        ]
        .concat(),
        &parquet,
    );
    let summary = String::from_utf8_lossy(&run.stderr);
    assert!(summary.contains("parquet: "), "{summary}");
    assert!(!temp("corpus.parquet.partial").exists());
    let records = json_records(&json);
    let (schema, groups, rows) = pyarrow_read(&parquet);
    assert!(records.len() > 5000, "{} records", records.len());
    assert_eq!(rows.len(), records.len(), "rows against JSON records");
    assert!(groups >= 8, "{groups} row groups of at most 1,000 records");
    let by_id: HashMap<u64, &Record> = records
        .iter()
        .map(|r| (r["flow_id"].as_u64().unwrap(), r))
        .collect();
    assert_eq!(by_id.len(), records.len(), "flow ids are unique");
    // The same columns as the JSON record's keys.
    let mut keys: Vec<&String> = records[0].keys().collect();
    let mut cols: Vec<&String> = schema.keys().collect();
    keys.sort();
    cols.sort();
    assert_eq!(cols, keys);
    let mut compared = 0u64;
    for row in &rows {
        let id = row["flow_id"].as_u64().unwrap();
        let js = by_id
            .get(&id)
            .unwrap_or_else(|| panic!("flow {id} is not in the JSON records"));
        for (k, v) in js.iter() {
            let p = &row[k.as_str()];
            assert!(same(k, p, v), "flow {id}, {k}: Parquet {p}, JSON {v}");
            compared += 1;
        }
    }
    eprintln!(
        "parquet_corpus: {} rows, {compared} values equal to JSON's, {groups} row groups",
        rows.len()
    );
    // The types docs/SCHEMA.md gives.
    let dict = "dictionary<values=string, indices=int32, ordered=0>";
    for c in [
        "proto",
        "app",
        "master",
        "category",
        "method",
        "end_reason",
        "l4",
        "tls_version",
        "alpn",
        "risks",
        "conn_state",
    ] {
        assert_eq!(schema[c], dict, "{c}");
    }
    for (c, t) in [
        ("first_ts", "timestamp[us, tz=UTC]"),
        ("last_ts", "timestamp[us, tz=UTC]"),
        ("duration", "double"),
        ("flow_id", "uint64"),
        ("src_ip", "string"),
        ("src_port", "uint16"),
        ("ip_proto", "uint8"),
        ("c2s_bytes", "uint64"),
        ("ttb_pkts", "uint32"),
        ("encrypted", "bool"),
        ("http_status", "uint32"),
        ("community_id", "string"),
        ("c2s_ps_mean", "double"),
        ("c2s_mss", "uint16"),
        ("c2s_sack_ok", "bool"),
        ("splt_ip", "list<item: int32 not null>"),
    ] {
        assert_eq!(schema[c], t, "{c}");
    }
}

/// The size against JSON's, default columns (BENCHMARKS.md has the figure).
#[test]
fn the_corpus_in_parquet_is_smaller_than_in_json() {
    let Some(corpus) = wirespeed_testkit::corpus("parquet_size") else {
        return;
    };
    let dir = corpus.pcap_dir();
    let (json, parquet) = (temp("size.jsonl"), temp("size.parquet"));
    classify(&[&dir], &[], &json);
    classify(&[&dir], &["--format", "parquet"], &parquet);
    let size = |p: &Path| std::fs::metadata(p).unwrap().len();
    let (j, p) = (size(&json), size(&parquet));
    eprintln!(
        "parquet_size: JSON {j} bytes, Parquet {p} bytes ({:.1}x smaller)",
        j as f64 / p as f64
    );
    assert!(p * 4 < j, "Parquet {p} bytes against JSON's {j}");
}

#[test]
fn parquet_needs_a_file_and_classify() {
    let pcap = demo("parquet-demo.pcap");
    for args in [
        &["classify", "--format", "parquet"][..],
        &["classify", "--format", "parquet", "-o", "-"],
    ] {
        let out = bin().args(args).arg(&pcap).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains("needs -o FILE"), "{err}");
    }
    // Not offered at all by live and inline (their --format takes json and csv): refused by the
    // argument parser, before anything else is looked at.
    for args in [
        &["live", "-i", "no-such-if0"][..],
        &["inline", "--queue", "0", "--policy", "no-such-policy.toml"],
    ] {
        let out = bin()
            .args(args)
            .args(["--format", "parquet"])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains("invalid value 'parquet'"), "{err}");
    }
}

/// The demo's file is complete and named only at the end; a write that fails leaves nothing
/// claiming to be complete (a device is written in place: /dev/full fails every write).
#[test]
fn a_failed_write_is_an_error() {
    let pcap = demo("parquet-full.pcap");
    if Path::new("/dev/full").exists() {
        let out = bin()
            .args(["classify", "-q", "--format", "parquet", "-o", "/dev/full"])
            .arg(&pcap)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains("/dev/full"), "{err}");
    }
    let target = temp("demo.parquet");
    std::fs::write(&target, b"an older file").unwrap();
    let run = classify(
        &[&pcap],
        &["--format", "parquet", "--workers", "3"],
        &target,
    );
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(err.contains("parquet: 9 records in "), "{err}");
    let bytes = std::fs::read(&target).unwrap();
    assert!(bytes.starts_with(b"PAR1") && bytes.ends_with(b"PAR1"));
}
