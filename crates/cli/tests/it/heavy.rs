//! `wirespeed gen heavy-tail`: the same seed writes the same bytes; `classify` names every flow
//! as the generator built it (its `--truth` file) with the packets it was built with; the flow
//! sizes, as `classify` counts them, are heavy-tailed as documented (bounded Pareto, α = 1.2,
//! at least 2 packets), by estimates computed here; tshark reads every packet, finds no error,
//! and reads the TLS and QUIC ClientHellos (QUIC's after opening them with RFC 9001's keys).

use crate::common::{bin, ok, temp, tools};
use std::collections::HashMap;
use std::path::PathBuf;

/// `gen heavy-tail` with `args`, into fresh files named after `name`: (capture, truth CSV).
#[track_caller]
fn gen(name: &str, args: &[&str]) -> (PathBuf, PathBuf) {
    let (pcap, truth) = (temp(&format!("{name}.pcap")), temp(&format!("{name}.csv")));
    ok(bin()
        .args(["gen", "heavy-tail"])
        .args(args)
        .arg("-o")
        .arg(&pcap)
        .arg("--truth")
        .arg(&truth));
    (pcap, truth)
}

/// Rows of a CSV file with a header, as maps from column to value.
fn rows(text: &[u8]) -> Vec<HashMap<String, String>> {
    let mut rd = csv::Reader::from_reader(text);
    let h = rd.headers().unwrap().clone();
    rd.records()
        .map(|r| {
            let r = r.unwrap();
            h.iter()
                .zip(r.iter())
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        })
        .collect()
}

/// A flow's key: transport, client and server ends.
fn key(r: &HashMap<String, String>) -> String {
    ["l4", "src_ip", "src_port", "dst_ip", "dst_port"]
        .map(|c| r[c].as_str())
        .join(" ")
}

fn num(r: &HashMap<String, String>, c: &str) -> u64 {
    r[c].parse().unwrap()
}

#[test]
fn the_same_seed_writes_the_same_bytes() {
    let args = ["--flows", "800", "--window", "100", "--seed"];
    let (a, ta) = gen("seed7-a", &[&args[..], &["7"]].concat());
    let (b, tb) = gen("seed7-b", &[&args[..], &["7"]].concat());
    let (c, _) = gen("seed8", &[&args[..], &["8"]].concat());
    let read = |p: &PathBuf| std::fs::read(p).unwrap();
    assert!(read(&a) == read(&b), "seed 7 wrote two different files");
    assert_eq!(read(&ta), read(&tb));
    assert!(read(&a) != read(&c), "seeds 7 and 8 wrote the same file");
    // A different window interleaves the same flows otherwise: other bytes, same flows.
    let (d, td) = gen(
        "seed7-w",
        &["--flows", "800", "--window", "10", "--seed", "7"],
    );
    assert!(read(&a) != read(&d));
    let sorted = |p: &PathBuf| {
        let mut r: Vec<String> = String::from_utf8(read(p))
            .unwrap()
            .lines()
            .map(str::to_string)
            .collect();
        r.sort();
        r
    };
    assert_eq!(sorted(&ta), sorted(&td));
}

/// The discrete Pareto's maximum-likelihood shape for sizes `n ≥ min`, where
/// P(N = n) = (min/n)^α − (min/(n+1))^α (the cap at 1,000,000 packets holds a mass of
/// (2/10^6)^1.2 ≈ 1.5e-7, left out), by golden-section search.
fn pareto_mle(sizes: &[u64], min: f64) -> f64 {
    let ll = |a: f64| -> f64 {
        sizes
            .iter()
            .map(|&n| ((min / n as f64).powf(a) - (min / (n as f64 + 1.0)).powf(a)).ln())
            .sum()
    };
    let (mut lo, mut hi) = (0.2f64, 5.0f64);
    let g = (5f64.sqrt() - 1.0) / 2.0;
    for _ in 0..100 {
        let (x1, x2) = (hi - g * (hi - lo), lo + g * (hi - lo));
        if ll(x1) < ll(x2) {
            lo = x1;
        } else {
            hi = x2;
        }
    }
    (lo + hi) / 2.0
}

/// Hill's estimator of the tail index from the `k` largest of `sorted` (descending).
fn hill(sorted: &[u64], k: usize) -> f64 {
    let t = sorted[k] as f64;
    k as f64
        / sorted[..k]
            .iter()
            .map(|&x| (x as f64 / t).ln())
            .sum::<f64>()
}

#[test]
fn flows_are_named_as_built_and_their_sizes_are_heavy_tailed() {
    let (pcap, truth) = gen("named", &["--flows", "5000", "--window", "500"]);
    let built = rows(&std::fs::read(&truth).unwrap());
    assert_eq!(built.len(), 5000);
    let out = ok(bin()
        .args(["classify", "--quiet", "--format", "csv"])
        .arg(&pcap));
    let records = rows(&out.stdout);
    assert_eq!(records.len(), 5000, "one record a flow");
    let by_key: HashMap<String, &HashMap<String, String>> =
        built.iter().map(|r| (key(r), r)).collect();
    assert_eq!(by_key.len(), 5000, "5-tuples repeat in the truth file");
    let (mut named, mut misses) = (0, Vec::new());
    for r in &records {
        let b = by_key
            .get(&key(r))
            .unwrap_or_else(|| panic!("a flow that was not built: {}", key(r)));
        for c in ["c2s_pkts", "c2s_bytes", "s2c_pkts", "s2c_bytes"] {
            assert_eq!(num(r, c), num(b, c), "{c} of {}", key(r));
        }
        if (&r["master"], &r["app"]) == (&b["master"], &b["app"]) {
            named += 1;
        } else {
            misses.push(format!(
                "{}: built {}/{}, named {}/{}",
                key(r),
                b["master"],
                b["app"],
                r["master"],
                r["app"]
            ));
        }
    }
    // Measured: all 5,000 (and all of 20,000 at the default size; nDPI 4.2 names them alike).
    assert!(
        named * 100 >= records.len() * 99,
        "{named} of {} flows named as built:\n{}",
        records.len(),
        misses.join("\n")
    );
    // Applications present: every kind the generator builds.
    for m in ["DNS", "NTP", "QUIC", "TLS", "HTTP", "SSH", "SMTP"] {
        assert!(records.iter().any(|r| r["master"] == m), "no {m} flow");
    }
    assert!(records.iter().any(|r| r["src_ip"].contains(':')), "no IPv6");

    // The sizes as classify counts them.
    let mut sizes: Vec<u64> = records
        .iter()
        .map(|r| num(r, "c2s_pkts") + num(r, "s2c_pkts"))
        .collect();
    sizes.sort_unstable_by(|a, b| b.cmp(a));
    assert!(*sizes.last().unwrap() >= 2);
    let total: u64 = sizes.iter().sum();
    // Maximum likelihood over every flow: standard error about α/√n = 0.017 here.
    let mle = pareto_mle(&sizes, 2.0);
    // Hill over the largest 5% (250 flows, at least 24 packets each): standard error about
    // α/√k = 0.076.
    let h = hill(&sizes, sizes.len() / 20);
    // Share of the packets in the largest 10% of the flows: 0.1^(1 − 1/α) = 0.68 for the
    // unbounded continuous Pareto (a finite sample rarely holds its far tail, so less); an
    // exponential of the same mean would give (1 + ln 10)/10 = 0.33.
    let top: u64 = sizes[..sizes.len() / 10].iter().sum();
    let share = top as f64 / total as f64;
    eprintln!(
        "{} flows, {total} packets, largest {}: MLE α {mle:.3}, Hill α (top 5%) {h:.3}, \
         top 10% of flows {share:.3} of packets",
        sizes.len(),
        sizes[0]
    );
    assert!((mle - 1.2).abs() < 0.1, "MLE α {mle}");
    assert!((h - 1.2).abs() < 0.3, "Hill α {h}");
    assert!(
        share > 0.5,
        "the largest 10% of flows hold {share} of the packets"
    );
}

#[test]
fn tshark_reads_every_packet_without_error() {
    if !tools("tshark_reads_every_packet_without_error", &["tshark"]) {
        return;
    }
    let (pcap, truth) = gen("tshark", &["--flows", "2000", "--window", "200"]);
    let built = rows(&std::fs::read(&truth).unwrap());
    let packets: u64 = built
        .iter()
        .map(|r| num(r, "c2s_pkts") + num(r, "s2c_pkts"))
        .sum();
    let out = ok(std::process::Command::new("tshark")
        .arg("-r")
        .arg(&pcap)
        .args([
            "-o",
            "ip.check_checksum:TRUE",
            "-o",
            "tcp.check_checksum:TRUE",
            "-o",
            "udp.check_checksum:TRUE",
            "-T",
            "fields",
            "-E",
            "separator=/t",
            "-e",
            "_ws.expert.severity",
            "-e",
            "_ws.malformed",
            "-e",
            "ip.checksum.status",
            "-e",
            "tcp.checksum.status",
            "-e",
            "udp.checksum.status",
            "-e",
            "udp.srcport",
            "-e",
            "tls.handshake.extensions_server_name",
        ]));
    let text = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.lines().all(|l| l.starts_with("Running as user")),
        "tshark: {stderr}"
    );
    assert_eq!(text.lines().count() as u64, packets, "packets tshark read");
    let mut sni: HashMap<(bool, String), i64> = HashMap::new();
    for (i, l) in text.lines().enumerate() {
        let f: Vec<&str> = l.split('\t').collect();
        // Expert severities: 0x800000 is an error.
        for s in f[0].split(',').filter(|s| !s.is_empty()) {
            let s: u32 = s.parse().unwrap();
            assert!(s < 0x80_0000, "frame {}: expert error ({l})", i + 1);
        }
        assert!(f[1].is_empty(), "frame {}: malformed ({l})", i + 1);
        // Checksum status 1 is good (0 bad, 2 unverified).
        for c in &f[2..5] {
            assert!(c.is_empty() || *c == "1", "frame {}: checksum {l}", i + 1);
        }
        if !f[6].is_empty() {
            *sni.entry((!f[5].is_empty(), f[6].to_string())).or_default() += 1;
        }
    }
    // One ClientHello a TLS and a QUIC flow, with the flow's host name.
    for r in &built {
        let quic = match r["master"].as_str() {
            "QUIC" => true,
            "TLS" => false,
            _ => continue,
        };
        *sni.entry((quic, r["host"].clone())).or_default() -= 1;
    }
    sni.retain(|_, n| *n != 0);
    assert!(
        sni.is_empty(),
        "ClientHellos tshark read minus those built (QUIC?, SNI): {sni:?}"
    );
}
