//! `--match FILE`: a bad pattern file is an error naming its line, and on corpus captures the
//! patterns `GET /` and `Host: ` are found in exactly the flows whose first HTTP request tshark
//! shows as a GET of a path (with a Host header), an independent decoder.

use std::collections::{BTreeSet, HashMap};
use std::process::Command;

use crate::common::{bin, demo, temp as tmp};

#[test]
fn bad_escape_is_an_error_with_its_line() {
    let pats = tmp("bad.txt");
    std::fs::write(&pats, "# comment\nGET /\n\nab\\xZZ\n").unwrap();
    let demo = demo("demo.pcap");
    let out = bin()
        .args(["classify", "--match"])
        .arg(&pats)
        .arg(&demo)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("line 4"), "{err}");
    let _ = std::fs::remove_file(pats);
    let _ = std::fs::remove_file(demo);
}

/// (client ip, client port) of the TCP streams whose first HTTP request is, per tshark, a GET of
/// an origin-form path, and of those whose first request has a Host header.
fn tshark_truth(pcap: &std::path::Path) -> Option<(BTreeSet<String>, BTreeSet<String>)> {
    let out = Command::new("tshark")
        .arg("-r")
        .arg(pcap)
        .args([
            "-Y",
            "tcp && http.request",
            "-T",
            "fields",
            "-E",
            "separator=|",
        ])
        .args([
            "-e",
            "tcp.stream",
            "-e",
            "ip.src",
            "-e",
            "ipv6.src",
            "-e",
            "tcp.srcport",
        ])
        .args([
            "-e",
            "http.request.method",
            "-e",
            "http.request.uri",
            "-e",
            "http.host",
        ])
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let mut first: HashMap<String, Vec<String>> = HashMap::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let c: Vec<String> = line.split('|').map(str::to_string).collect();
        if c.len() == 7 {
            first.entry(c[0].clone()).or_insert(c);
        }
    }
    let (mut get, mut host) = (BTreeSet::new(), BTreeSet::new());
    for c in first.values() {
        let ip = if c[1].is_empty() { &c[2] } else { &c[1] };
        let key = format!("{ip}:{}", c[3]);
        if c[4] == "GET" && c[5].starts_with('/') {
            get.insert(key.clone());
        }
        if !c[6].is_empty() {
            host.insert(key);
        }
    }
    Some((get, host))
}

#[test]
fn get_and_host_patterns_find_the_http_flows_tshark_shows() {
    let Some(corpus) = wirespeed_testkit::corpus("get_and_host_patterns") else {
        return;
    };
    let corpus = corpus.pcap_dir();
    let pats = tmp("http.txt");
    std::fs::write(&pats, "# HTTP\nGET /\nHost: \n").unwrap();
    let mut checked = 0;
    for name in ["http.pcapng", "http_auth.pcap", "1kxun.pcap"] {
        let pcap = corpus.join(name);
        let Some((get, host)) = tshark_truth(&pcap) else {
            wirespeed_testkit::skip("matches", "tshark not available (apt-get install tshark)");
            return;
        };
        let out = bin()
            .args(["classify", "-q", "--match"])
            .arg(&pats)
            .arg(&pcap)
            .output()
            .unwrap();
        assert!(out.status.success());
        let (mut our_get, mut our_host) = (BTreeSet::new(), BTreeSet::new());
        for line in String::from_utf8(out.stdout).unwrap().lines() {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            if v["l4"] != "TCP" {
                continue;
            }
            let key = format!("{}:{}", v["src_ip"].as_str().unwrap(), v["src_port"]);
            let m = v["matches"].as_str().unwrap_or("");
            let ids: Vec<&str> = m.split(' ').collect();
            if ids.contains(&"0") {
                our_get.insert(key.clone());
            }
            if ids.contains(&"1") {
                our_host.insert(key);
            }
        }
        assert!(!get.is_empty(), "{name}: tshark shows no GET");
        assert_eq!(our_get, get, "{name}: flows matching `GET /`");
        assert_eq!(our_host, host, "{name}: flows matching `Host: `");
        checked += get.len();
    }
    assert!(checked > 3);
    let _ = std::fs::remove_file(pats);
}
