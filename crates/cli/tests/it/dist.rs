//! `--stats dist`: the distribution columns are in the CSV header and in every row, JSON and
//! CSV say the same, the figures are consistent with the record's own counters, and an unknown
//! family is refused. Their values are checked against tshark's dissection of every corpus
//! packet by `scripts/dist_check.py` (7,193 of 7,193 TCP and UDP flows, docs/SCHEMA.md).

use std::process::Command;

use crate::common::{bin, demo};

#[test]
fn distributions_in_both_formats_and_consistent() {
    let pcap = demo("dist-demo.pcap");
    let json = Command::new(bin().get_program())
        .args(["classify", "--stats", "dist", "-q", "--ordered"])
        .arg(&pcap)
        .output()
        .unwrap();
    assert!(json.status.success());
    let recs: Vec<serde_json::Value> = String::from_utf8_lossy(&json.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(!recs.is_empty());
    for r in &recs {
        for d in ["c2s", "s2c"] {
            let n = r[format!("{d}_pkts")].as_u64().unwrap();
            let min = &r[format!("{d}_ps_min")];
            if n == 0 {
                assert!(min.is_null(), "{r}");
                continue;
            }
            let (min, mean, max) = (
                min.as_f64().unwrap(),
                r[format!("{d}_ps_mean")].as_f64().unwrap(),
                r[format!("{d}_ps_max")].as_f64().unwrap(),
            );
            assert!(min <= mean + 1e-3 && mean <= max + 1e-3, "{r}");
            assert!(r[format!("{d}_ps_std")].as_f64().unwrap() <= (max - min) / 2.0 + 1e-3);
            if n == 1 {
                assert!(
                    r[format!("{d}_piat_min_us")].is_null(),
                    "one packet, no gap: {r}"
                );
            }
            for f in ["syn", "fin", "rst", "psh", "ack", "urg", "ece", "cwr"] {
                assert!(r[format!("{d}_{f}")].as_u64().unwrap() <= n, "{r}");
            }
        }
    }
    let csv = Command::new(bin().get_program())
        .args([
            "classify",
            "--stats",
            "dist",
            "--format",
            "csv",
            "-q",
            "--ordered",
        ])
        .arg(&pcap)
        .output()
        .unwrap();
    let mut rd = csv::Reader::from_reader(&csv.stdout[..]);
    let header = rd.headers().unwrap().clone();
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    let rows: Vec<csv::StringRecord> = rd.records().map(|r| r.unwrap()).collect();
    assert_eq!(rows.len(), recs.len());
    for (row, r) in rows.iter().zip(&recs) {
        assert_eq!(row.len(), header.len());
        assert_eq!(row[col("c2s_ps_max")], r["c2s_ps_max"].to_string());
        assert_eq!(row[col("s2c_ack")], r["s2c_ack"].to_string());
    }
    let bad = Command::new(bin().get_program())
        .args(["classify", "--stats", "tcp-magic", "-q"])
        .arg(&pcap)
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("the families are: dist"));
}
