//! Payload inspection against nDPI's verdicts on the real captures of ../shared/corpus.
//!
//! Every capture runs through a worker with all classifiers; each record is joined with
//! `flows.csv` by capture and bidirectional 5-tuple. Over the flows nDPI identified from payload
//! (`confidence` starting with "DPI") the test prints master-protocol agreement per protocol and
//! lists disagreements (capped), then checks floors: the protocols our inspectors claim must
//! agree almost always, the whole corpus (long tail included, much of it not inspected yet) at
//! least as well as measured when this test was written. Metadata is compared with nDPI's
//! columns where both name the same thing (SNI, JA3, QUIC version, URL). Without the corpus it
//! says so and passes (under `CI=true` it fails).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::net::IpAddr;
use std::path::PathBuf;
use wirespeed_engine::{run_file, EngineConfig, Worker};
use wirespeed_export::JsonLinesWriter;

fn corpus_dir(test: &str) -> Option<PathBuf> {
    wirespeed_testkit::corpus(test).map(|c| c.dir().to_path_buf())
}

type Key = (String, String, (String, String), (String, String));

fn ip(s: &str) -> String {
    s.parse::<IpAddr>()
        .map(|a| a.to_string())
        .unwrap_or_else(|_| s.to_string())
}

fn key(pcap: &str, l4: &str, a: (&str, &str), b: (&str, &str)) -> Key {
    let a = (ip(a.0), a.1.to_string());
    let b = (ip(b.0), b.1.to_string());
    let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
    (pcap.to_string(), l4.to_uppercase(), lo, hi)
}

#[test]
fn dpi_agrees_with_ndpi_on_the_corpus() {
    let Some(dir) = corpus_dir("dpi_corpus") else {
        return;
    };
    // Our records, by flow.
    let mut ours: HashMap<Key, serde_json::Value> = HashMap::new();
    let mut pcaps: Vec<PathBuf> = std::fs::read_dir(dir.join("pcap"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    pcaps.sort();
    for path in &pcaps {
        let mut w = Worker::new(
            EngineConfig::default(),
            JsonLinesWriter::new(Vec::new(), true),
            true,
        );
        run_file(&mut w, path, &mut |_, _| {}).unwrap();
        let text = String::from_utf8(w.finish().unwrap().into_inner().unwrap()).unwrap();
        for line in text.lines() {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            let s = |k: &str| v[k].as_str().unwrap_or("").to_string();
            let n = |k: &str| v[k].as_u64().unwrap_or(0).to_string();
            let k = key(
                &s("pcap"),
                &s("l4"),
                (&s("src_ip"), &n("src_port")),
                (&s("dst_ip"), &n("dst_port")),
            );
            ours.insert(k, v);
        }
    }
    // The masters our inspectors can name.
    let claimed: HashSet<&str> = wirespeed_dpi::proto::REGISTRY
        .iter()
        .flat_map(|i| i.labels.iter().map(|l| l.master))
        .collect();
    let mut per: BTreeMap<String, (u32, u32)> = BTreeMap::new();
    let mut misses = Vec::new();
    let mut fields: BTreeMap<&str, (u32, u32)> = BTreeMap::new();
    let mut field_misses = Vec::new();
    let mut rdr = csv::Reader::from_path(dir.join("flows.csv")).unwrap();
    for row in rdr.deserialize::<HashMap<String, String>>() {
        let r = row.unwrap();
        let k = key(
            &r["pcap"],
            &r["l4"],
            (&r["src_ip"], &r["src_port"]),
            (&r["dst_ip"], &r["dst_port"]),
        );
        let Some(v) = ours.get(&k) else { continue };
        let got = |f: &str| v[f].as_str().unwrap_or("").to_string();
        if r["confidence"].starts_with("DPI") {
            let e = per.entry(r["master"].clone()).or_default();
            e.1 += 1;
            if got("master") == r["master"] {
                e.0 += 1;
            } else {
                // Ours first: a master we claim to know, or a payload verdict of ours.
                let mine = claimed.contains(r["master"].as_str()) || got("method") == "dpi";
                misses.push((
                    !mine,
                    format!(
                        "{} {} {}:{} {}:{} expected {} got {} ({})",
                        r["pcap"],
                        r["l4"],
                        r["src_ip"],
                        r["src_port"],
                        r["dst_ip"],
                        r["dst_port"],
                        r["master"],
                        got("master"),
                        got("method")
                    ),
                ));
            }
        }
        // Metadata nDPI and we both name. nDPI's `sni` column holds the TLS/QUIC SNI for those.
        let pairs: &[(&str, &str)] = &[
            ("ja3c", "ja3c"),
            ("quic_version", "quic_version"),
            ("url", "url"),
        ];
        let mut check = |col: &'static str, ours_col: &str| {
            let want = &r[col];
            if want.is_empty() {
                return;
            }
            let e = fields.entry(col).or_default();
            e.1 += 1;
            if got(ours_col) == *want {
                e.0 += 1;
            } else {
                field_misses.push(format!(
                    "{} {} {}: expected {want:?} got {:?}",
                    r["pcap"],
                    r["src_port"],
                    col,
                    got(ours_col)
                ));
            }
        };
        for (c, o) in pairs {
            check(c, o);
        }
        if matches!(r["master"].as_str(), "TLS" | "QUIC") {
            check("sni", "sni");
        }
    }
    let (mut ok, mut all, mut cok, mut call) = (0, 0, 0, 0);
    println!("master-protocol agreement on flows nDPI identified by payload:");
    let mut rows: Vec<_> = per.iter().collect();
    rows.sort_by_key(|(_, (_, n))| std::cmp::Reverse(*n));
    for (m, (a, n)) in &rows {
        ok += a;
        all += n;
        let mark = if claimed.contains(m.as_str()) {
            cok += a;
            call += n;
            "*"
        } else {
            " "
        };
        if *n >= 5 || claimed.contains(m.as_str()) {
            println!(
                "  {mark} {m:<28} {a:>5}/{n:<5} {:5.1}%",
                100.0 * *a as f64 / *n as f64
            );
        }
    }
    println!("  (* = a master our inspectors can name; smaller others not listed)");
    let pct = |a: u32, n: u32| 100.0 * a as f64 / n.max(1) as f64;
    println!(
        "all: {ok}/{all} = {:.1}%; masters we inspect: {cok}/{call} = {:.1}%",
        pct(ok, all),
        pct(cok, call)
    );
    misses.sort();
    let mine = misses.iter().filter(|m| !m.0).count();
    println!(
        "disagreements: {} in all; every one on a master we inspect or from a payload verdict \
         of ours ({mine}), then the first 40 others:",
        misses.len()
    );
    for (_, m) in misses.iter().take(mine + 40) {
        println!("  {m}");
    }
    println!("metadata equal to nDPI's:");
    for (f, (a, n)) in &fields {
        println!("  {f:<14} {a:>5}/{n:<5} {:5.1}%", pct(*a, *n));
    }
    for m in field_misses.iter().take(30) {
        println!("  {m}");
    }
    // Floors: one point under what was measured on 2026-11-24 (claimed masters 99.4%,
    // everything 98.8%, SNI 98.1%, JA3 96.7%, QUIC version 100%, URL 98.7%), so a regression of
    // more than a point fails; the claimed masters' floor stays at its earlier, stricter 98.5.
    assert!(pct(cok, call) >= 98.5, "claimed masters below floor");
    assert!(pct(ok, all) >= 97.8, "overall below floor");
    let f = |k: &str| fields.get(k).map_or(100.0, |(a, n)| pct(*a, *n));
    assert!(f("sni") >= 97.1, "SNI below floor");
    assert!(f("ja3c") >= 95.7, "JA3 below floor");
    assert!(f("quic_version") >= 99.0, "QUIC version below floor");
    assert!(f("url") >= 97.7, "URL below floor");
}
