//! The `stats` classifier from the command line: a bad model file is a clear error, and
//! `wirespeed train` writes a model that `classify --model` uses.

use std::path::PathBuf;

use crate::common::{bin, demo, temp as tmp};

#[test]
fn corrupt_or_foreign_model_is_a_clear_error() {
    let demo = demo("demo.pcap");
    let bad = tmp("bad.wsm");
    std::fs::write(&bad, b"GIF89a not a model at all, just bytes").unwrap();
    let out = bin()
        .args(["classify", "--model"])
        .arg(&bad)
        .arg(&demo)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("invalid model file") && err.contains("bad magic"),
        "{err}"
    );
    // The built-in model with the stats classifier: every record has the stats fields.
    let out = bin()
        .args(["classify", "--features", "--classifiers", "port,stats"])
        .arg(&demo)
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    for line in text.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        assert!(
            v["stats_app"].is_string() && v["splt_ip"].is_array(),
            "{line}"
        );
        assert_ne!(v["stats_app"], "", "model did not run: {line}");
    }
    let _ = std::fs::remove_file(demo);
    let _ = std::fs::remove_file(bad);
}

#[test]
fn train_writes_a_model_classify_uses() {
    let Some(corpus) = wirespeed_testkit::corpus("train_writes_a_model_classify_uses") else {
        return;
    };
    let corpus = corpus.dir().to_path_buf();
    let model = tmp("small.wsm");
    let pcaps: Vec<PathBuf> = ["1kxun.pcap", "dns.pcap", "quic.pcap", "443-chrome.pcap"]
        .iter()
        .map(|p| corpus.join("pcap").join(p))
        .filter(|p| p.exists())
        .collect();
    let out = bin()
        .args([
            "train",
            "--algo",
            "c45",
            "--min-class",
            "3",
            "--folds",
            "2",
            "--labels",
        ])
        .arg(corpus.join("flows.csv"))
        .arg("-o")
        .arg(&model)
        .args(&pcaps)
        .output()
        .unwrap();
    let so = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        so.contains("macro-F1") && so.contains("confusion matrix"),
        "{so}"
    );
    let out = bin()
        .args(["classify", "--classifiers", "stats", "--model"])
        .arg(&model)
        .arg(&pcaps[0])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("\"method\":\"stats\""), "{text}");
    let _ = std::fs::remove_file(model);
}
