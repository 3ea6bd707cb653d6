//! `--stats tcp`: the TCP analysis columns in both formats, consistent with the record's own
//! counters, absent for other transports; and, on the corpus, every TCP flow's retransmissions,
//! out-of-order segments and RTT samples against tshark's `tcp.analysis` by
//! `scripts/tcp_check.py` (the target: at least 95% of the flows agree on each).

use std::path::Path;
use std::process::Command;

use crate::common::{bin, demo, ok, temp, tools};

#[test]
fn tcp_analysis_in_both_formats_and_consistent() {
    let pcap = demo("tcp-demo.pcap");
    let json = ok(bin()
        .args(["classify", "--stats", "tcp", "-q", "--ordered"])
        .arg(&pcap));
    let recs: Vec<serde_json::Value> = String::from_utf8_lossy(&json.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let mut tcp = 0;
    for r in &recs {
        if r["l4"] != "TCP" {
            assert!(r["c2s_retrans"].is_null() && r["history"].is_null(), "{r}");
            continue;
        }
        tcp += 1;
        let state = r["conn_state"].as_str().unwrap();
        assert!(
            [
                "S0", "S1", "SF", "REJ", "S2", "S3", "RSTO", "RSTR", "RSTOS0", "RSTRH", "SH",
                "SHR", "OTH"
            ]
            .contains(&state),
            "{r}"
        );
        for d in ["c2s", "s2c"] {
            let pkts = r[format!("{d}_pkts")].as_u64().unwrap();
            let bytes = r[format!("{d}_bytes")].as_u64().unwrap();
            let n = |f: &str| r[format!("{d}_{f}")].as_u64().unwrap();
            assert!(n("retrans") + n("ooo") <= pkts, "{r}");
            assert!(n("dup") <= n("retrans"), "{r}");
            assert!(n("unique_bytes") <= bytes, "{r}");
            assert!(n("rtt_n") <= pkts, "{r}");
            if pkts > 0 {
                let (lo, hi) = (n("ttl_min"), n("ttl_max"));
                assert!(lo <= hi && hi <= 255, "{r}");
            }
            if n("rtt_n") > 0 {
                let mean = r[format!("{d}_rtt_mean_us")].as_f64().unwrap();
                assert!(n("rtt_min_us") as f64 <= mean + 1e-3, "{r}");
                assert!(mean <= n("rtt_max_us") as f64 + 1e-3, "{r}");
            }
        }
        // Zeek's letters, client upper case: a flow the demo starts with a SYN begins with S.
        let h = r["history"].as_str().unwrap();
        assert!(
            h.chars().all(|c| "SHADFRQITWGshadfrqitwg".contains(c)),
            "{r}"
        );
        if r["c2s_syn"].as_u64().is_some_and(|s| s > 0) {
            assert!(h.starts_with('S'), "{r}");
        }
    }
    assert!(tcp > 0, "the demo has TCP flows");
    let csv = ok(bin()
        .args([
            "classify",
            "--stats",
            "tcp,dist",
            "--format",
            "csv",
            "-q",
            "--ordered",
        ])
        .arg(&pcap));
    let mut rd = csv::Reader::from_reader(&csv.stdout[..]);
    let header = rd.headers().unwrap().clone();
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    assert!(col("c2s_ps_max") < col("c2s_retrans"), "dist, then tcp");
    let rows: Vec<csv::StringRecord> = rd.records().map(|r| r.unwrap()).collect();
    assert_eq!(rows.len(), recs.len());
    for (row, r) in rows.iter().zip(&recs) {
        assert_eq!(row.len(), header.len());
        let s = |v: &serde_json::Value| match v {
            serde_json::Value::Null => String::new(),
            serde_json::Value::String(s) => s.clone(),
            v => v.to_string(),
        };
        for f in [
            "c2s_retrans",
            "s2c_rtt_n",
            "history",
            "conn_state",
            "hs_rtt_us",
        ] {
            assert_eq!(row[col(f)], s(&r[f]), "{f}");
        }
    }
}

/// Where `scripts/` is.
fn scripts() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../scripts"))
}

#[test]
fn tcp_analysis_agrees_with_tshark_on_the_corpus() {
    let Some(corpus) = wirespeed_testkit::corpus("tcp_analysis_agrees_with_tshark") else {
        return;
    };
    if !tools("tcp_analysis_agrees_with_tshark", &["tshark", "python3"]) {
        return;
    }
    let out = temp("tcp-corpus.jsonl");
    // A damaged capture of the corpus makes the exit 1; its good packets still count.
    let run = bin()
        .args(["classify", "--stats", "tcp", "-q", "-o"])
        .arg(&out)
        .arg(corpus.pcap_dir())
        .output()
        .unwrap();
    assert!(run.status.code().is_some_and(|c| c <= 1), "{run:?}");
    let check = ok(Command::new("python3")
        .arg(scripts().join("tcp_check.py"))
        .arg(corpus.pcap_dir())
        .arg(&out)
        .args(["--list", "20"]));
    let text = String::from_utf8_lossy(&check.stdout);
    eprintln!("{text}");
    let share = |fig: &str| -> f64 {
        let line = text
            .lines()
            .find(|l| l.split_whitespace().next() == Some(fig))
            .unwrap_or_else(|| panic!("no {fig} line"));
        line.trim_end_matches('%')
            .rsplit(' ')
            .next()
            .unwrap()
            .parse()
            .unwrap()
    };
    let flows: usize = text
        .lines()
        .next()
        .and_then(|l| l.rsplit(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap();
    assert!(flows > 4000, "{flows} TCP flows compared");
    for fig in ["retrans", "ooo", "rtt_n"] {
        assert!(share(fig) >= 95.0, "{fig}: {}% of flows agree", share(fig));
    }
}
