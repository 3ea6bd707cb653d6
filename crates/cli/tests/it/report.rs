//! `wirespeed report`: the page's numbers against the records, computed here from the JSON
//! records with serde_json (not by the report crate); hostile strings escaped; empty input;
//! missing columns named; Parquet without its feature (with it: Parquet records give the JSON
//! records' numbers); no reference to anything outside the file; and the corpus's page read
//! back from a real browser (Debian's chromium, headless, driven over the DevTools protocol by
//! scripts/report_browser.py).

use serde_json::Value;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_wirespeed"))
}

/// A path in this binary's own scratch folder.
fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("wirespeed-test-report-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn ok(cmd: &mut Command) -> Output {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// What the page must say, computed from JSON records.
#[derive(Debug, PartialEq)]
struct Expect {
    flows: u64,
    bytes: u64,
    top_app: String,
    top_app_bytes: u64,
}

fn expect_from_json(path: &Path) -> Expect {
    let text = std::fs::read_to_string(path).unwrap();
    let (mut flows, mut bytes) = (0, 0);
    let mut apps: HashMap<String, u64> = HashMap::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let v: Value = serde_json::from_str(line).unwrap();
        if v["end_reason"] == "active" {
            continue;
        }
        let b = v["c2s_bytes"].as_u64().unwrap() + v["s2c_bytes"].as_u64().unwrap();
        flows += 1;
        bytes += b;
        *apps
            .entry(v["app"].as_str().unwrap().to_string())
            .or_default() += b;
    }
    // The largest; among equals, the first by name.
    let (top_app, top_app_bytes) = apps
        .into_iter()
        .min_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)))
        .unwrap_or_default();
    Expect {
        flows,
        bytes,
        top_app,
        top_app_bytes,
    }
}

/// The number in `id="ID" data-v="N"`.
fn kpi(page: &str, id: &str) -> u64 {
    let at = format!("id=\"{id}\" data-v=\"");
    let rest = &page[page.find(&at).unwrap_or_else(|| panic!("no {id}")) + at.len()..];
    rest[..rest.find('"').unwrap()].parse().unwrap()
}

/// The applications table's first row: name and bytes.
fn top_app(page: &str) -> (String, u64) {
    let table = &page[page.find("<table id=\"apps\"").expect("no apps table")..];
    let row = &table[table.find("<tr data-name=\"").unwrap() + 15..];
    let name = &row[..row.find('"').unwrap()];
    let b = &row[row.find("data-bytes=\"").unwrap() + 12..];
    (name.to_string(), b[..b.find('"').unwrap()].parse().unwrap())
}

fn page_says(page: &str) -> Expect {
    let (top_app, top_app_bytes) = top_app(page);
    Expect {
        flows: kpi(page, "total-flows"),
        bytes: kpi(page, "total-bytes"),
        top_app,
        top_app_bytes,
    }
}

/// Nothing in the page refers to anything outside it.
fn self_contained(page: &str) {
    for bad in [" src=", " href=", "url(", "@import", "<link", "<iframe"] {
        assert!(!page.contains(bad), "{bad} in the page");
    }
}

fn report(args: &[&Path], out: &Path) -> String {
    let mut c = bin();
    c.arg("report").arg("-q").args(args).arg("-o").arg(out);
    ok(&mut c);
    std::fs::read_to_string(out).unwrap()
}

#[test]
fn numbers_equal_the_records_from_json_csv_and_the_capture() {
    let cap = temp("demo.pcap");
    ok(bin().args(["gen", "demo", "-o"]).arg(&cap));
    let json = temp("demo.json");
    let csv = temp("demo.csv");
    ok(bin()
        .args(["classify", "-q", "--workers", "2"])
        .arg(&cap)
        .arg("-o")
        .arg(&json));
    ok(bin()
        .args(["classify", "-q", "--format", "csv"])
        .arg(&cap)
        .arg("-o")
        .arg(&csv));
    let want = expect_from_json(&json);
    assert!(want.flows > 5 && want.top_app_bytes > 0, "{want:?}");
    for (input, name) in [(&json, "json.html"), (&csv, "csv.html"), (&cap, "cap.html")] {
        let page = report(&[input], &temp(name));
        assert_eq!(page_says(&page), want, "{name}");
        self_contained(&page);
        assert!(!page.contains("http://") && !page.contains("https://"));
    }
    // Two inputs: the totals add up.
    let page = report(&[&json, &csv], &temp("both.html"));
    assert_eq!(kpi(&page, "total-flows"), 2 * want.flows);
    assert_eq!(kpi(&page, "total-bytes"), 2 * want.bytes);
}

#[test]
fn flow_table_is_capped_and_says_so() {
    let cap = temp("cap.pcap");
    ok(bin().args(["gen", "demo", "-o"]).arg(&cap));
    let page = {
        let out = temp("capped.html");
        ok(bin()
            .args(["report", "-q", "--rows", "3"])
            .arg(&cap)
            .arg("-o")
            .arg(&out));
        std::fs::read_to_string(out).unwrap()
    };
    let table = &page[page.find("<table id=\"flows\"").unwrap()..];
    assert_eq!(table.matches("<tr><td data-v=").count(), 3);
    assert!(page.contains("data-rows=\"3\" data-cap=\"3\""));
    assert!(page.contains("The 3 largest flows by bytes of"));
}

#[test]
fn hostile_strings_are_escaped() {
    let evil = r#"<script>alert(1)</script>"><svg onload=alert(2)>'&"#;
    let rec = |app: &str, sni: &str| {
        serde_json::json!({
            "pcap": evil, "src_ip": evil, "src_port": 1, "dst_ip": "10.0.0.2", "dst_port": 443,
            "l4": evil, "tunnel": evil, "first_ts": 1.6e9, "last_ts": 1.6e9 + 2.0,
            "c2s_pkts": 1, "c2s_bytes": 100, "s2c_pkts": 1, "s2c_bytes": 100,
            "app": app, "category": evil, "method": evil, "ttb_pkts": 1, "risks": evil,
            "sni": sni, "tls_version": evil, "ja4": evil
        })
        .to_string()
    };
    let input = temp("evil.json");
    std::fs::write(&input, rec(evil, evil) + "\n" + &rec("TLS", evil) + "\n").unwrap();
    let page = report(&[&input], &temp("evil.html"));
    assert!(!page.contains("<script>alert"));
    assert!(!page.contains("<svg onload"));
    assert!(page.contains(
        "&lt;script&gt;alert(1)&lt;/script&gt;&quot;&gt;&lt;svg onload=alert(2)&gt;&#39;&amp;"
    ));
    assert_eq!(
        page.matches("<script").count(),
        1,
        "only the page's own script"
    );
    self_contained(&page);
}

#[test]
fn empty_input_gives_a_page_that_says_so() {
    let input = temp("empty.json");
    std::fs::write(&input, "").unwrap();
    let page = report(&[&input], &temp("empty.html"));
    assert!(page.contains("id=\"empty\""));
    assert_eq!(kpi(&page, "total-flows"), 0);
    self_contained(&page);
}

fn refused(input: &Path, name: &str) -> String {
    let out = bin()
        .args(["report", "-q"])
        .arg(input)
        .arg("-o")
        .arg(temp(name))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{input:?} was not refused");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn missing_columns_are_named_unknown_ones_ignored() {
    let json = temp("nobytes.json");
    std::fs::write(
        &json,
        r#"{"src_ip":"a","dst_ip":"b","first_ts":1,"last_ts":2,"c2s_pkts":1,"s2c_pkts":0,"s2c_bytes":0,"app":"X"}"#,
    )
    .unwrap();
    let e = refused(&json, "nobytes.html");
    assert!(e.contains("missing column `c2s_bytes`"), "{e}");
    let csv = temp("noapp.csv");
    std::fs::write(
        &csv,
        "src_ip,dst_ip,first_ts,last_ts,c2s_pkts,c2s_bytes,s2c_pkts,s2c_bytes\n1,2,3,4,5,6,7,8\n",
    )
    .unwrap();
    let e = refused(&csv, "noapp.html");
    assert!(e.contains("missing column `app`"), "{e}");
    // A newer record version: unknown columns, in another order, are read by name.
    let newer = temp("newer.csv");
    std::fs::write(
        &newer,
        "zz_future,app,s2c_bytes,c2s_bytes,s2c_pkts,c2s_pkts,last_ts,first_ts,dst_ip,src_ip\n\
         x,DNS,5,6,1,1,2.5,2.0,10.0.0.2,10.0.0.1\n",
    )
    .unwrap();
    let page = report(&[&newer], &temp("newer.html"));
    assert_eq!(kpi(&page, "total-bytes"), 11);
    assert_eq!(top_app(&page), ("DNS".to_string(), 11));
}

#[test]
fn parquet_records_without_the_feature_name_it() {
    let p = temp("records.parquet");
    std::fs::write(&p, b"PAR1\x15\x04\x15\x00").unwrap();
    let e = refused(&p, "parquet.html");
    if cfg!(feature = "parquet") {
        // Read, and found damaged: the message names the file.
        assert!(e.contains("records.parquet"), "{e}");
    } else {
        assert!(e.contains("cargo feature `parquet`"), "{e}");
    }
}

/// With the feature, `classify --format parquet`'s file gives the JSON records' numbers.
#[cfg(feature = "parquet")]
#[test]
fn parquet_records_give_the_json_numbers() {
    let cap = temp("pq.pcap");
    ok(bin().args(["gen", "demo", "-o"]).arg(&cap));
    let (json, pq) = (temp("pq.json"), temp("pq.parquet"));
    ok(bin()
        .args(["classify", "-q"])
        .arg(&cap)
        .arg("-o")
        .arg(&json));
    ok(bin()
        .args(["classify", "-q", "--format", "parquet"])
        .arg(&cap)
        .arg("-o")
        .arg(&pq));
    let page = report(&[&pq], &temp("pq.html"));
    assert_eq!(page_says(&page), expect_from_json(&json));
}

/// Debian's chromium, or `SKIPPED` (a failure under `CI=true`).
fn chromium(test: &str) -> bool {
    if Command::new("chromium")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        return true;
    }
    let why = format!("{test}: chromium not installed");
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("{why}; .ci/run installs it (apt-get install chromium)");
    }
    eprintln!("SKIPPED: {why}");
    false
}

#[test]
fn corpus_page_in_a_real_browser() {
    const TEST: &str = "corpus_page_in_a_real_browser";
    let Some(corpus) = wirespeed_testkit::corpus(TEST) else {
        return;
    };
    if !chromium(TEST) {
        return;
    }
    let pcaps = corpus.dir().join("pcap");
    let json = temp("corpus.json");
    let out = bin()
        .args(["classify", "-q"])
        .arg(&pcaps)
        .arg("-o")
        .arg(&json)
        .output()
        .unwrap();
    // The corpus holds damaged captures: exit 1, every good packet processed.
    assert!(matches!(out.status.code(), Some(0 | 1)));
    let want = expect_from_json(&json);
    let page = temp("corpus.html");
    let out = bin()
        .args(["report", "-q"])
        .arg(&pcaps)
        .arg("-o")
        .arg(&page)
        .output()
        .unwrap();
    assert!(matches!(out.status.code(), Some(0 | 1)));
    self_contained(&std::fs::read_to_string(&page).unwrap());
    // Kept with the test run's files.
    let shot = Path::new(env!("CARGO_TARGET_TMPDIR")).join("report-corpus.png");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/report_browser.py");
    let out = Command::new("python3")
        .arg(script)
        .arg(&page)
        .arg(&shot)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let seen: Value = serde_json::from_slice(&out.stdout).unwrap();
    eprintln!("screenshot: {}", shot.display());
    let page_url = format!("file://{}", std::fs::canonicalize(&page).unwrap().display());
    assert_eq!(
        seen["requests"],
        serde_json::json!([page_url]),
        "the page's requests"
    );
    assert_eq!(seen["errors"], serde_json::json!([]), "console errors");
    let dom = &seen["dom"];
    assert_eq!(dom["ready"], "1", "the page's script ran to its end");
    let num = |k: &str| dom[k].as_str().unwrap().parse::<u64>().unwrap();
    assert_eq!(num("total_flows"), want.flows);
    assert_eq!(num("total_bytes"), want.bytes);
    assert_eq!(dom["top_app_text"], want.top_app.as_str());
    assert_eq!(num("top_app_bytes"), want.top_app_bytes);
    // Shown with thousands separators.
    assert_eq!(
        dom["top_app_bytes_text"].as_str().unwrap().replace(',', ""),
        want.top_app_bytes.to_string()
    );
    // The flow table: capped at 5,000 rows (the corpus has more flows), filtered and sorted.
    assert!(want.flows > 5000);
    assert_eq!(dom["flow_rows"], 5000);
    assert_eq!(dom["shown_before"], "5000");
    assert_eq!(dom["shown_nothing"], "0");
    assert_eq!(dom["shown_after"], "5000");
    assert_eq!(dom["sorted_one_way"], true);
    assert_eq!(dom["sorted_other_way"], true);
    assert!(std::fs::metadata(&shot).unwrap().len() > 10_000);
}

/// (bytes, packets, flows) of one name.
type Tally3 = (u64, u64, u64);

/// Every row of the table `id`: its name and its exact (bytes, packets, flows).
fn table_rows(page: &str, id: &str) -> Vec<(String, Tally3)> {
    let start = page
        .find(&format!("<table id=\"{id}\""))
        .unwrap_or_else(|| panic!("no table {id}"));
    let table = &page[start..start + page[start..].find("</table>").unwrap()];
    let attr = |row: &str, name: &str| -> String {
        let at = format!("{name}=\"");
        let v = &row[row.find(&at).unwrap() + at.len()..];
        v[..v.find('"').unwrap()].to_string()
    };
    table
        .split("<tr data-name=")
        .skip(1)
        .map(|row| {
            let row = format!("data-name={row}");
            let n = |a: &str| attr(&row, a).parse::<u64>().unwrap();
            let name = attr(&row, "data-name");
            (name, (n("data-bytes"), n("data-pkts"), n("data-flows")))
        })
        .collect()
}

/// The corpus's records, summed here by application, category and method from the JSON
/// records, against every row of the page's three tables (a row shown is exact, and no name
/// left out is larger than one shown), and the page's totals, client/server split, Unknown and
/// risky figures.
#[test]
fn every_row_of_the_name_tables_equals_the_records() {
    const TEST: &str = "every_row_of_the_name_tables_equals_the_records";
    let Some(corpus) = wirespeed_testkit::corpus(TEST) else {
        return;
    };
    let json = temp("rows.json");
    let out = bin()
        .args(["classify", "-q"])
        .arg(corpus.dir().join("pcap"))
        .arg("-o")
        .arg(&json)
        .output()
        .unwrap();
    assert!(matches!(out.status.code(), Some(0 | 1)));
    let page = report(&[&json], &temp("rows.html"));

    let mut by: [HashMap<String, Tally3>; 3] = Default::default();
    let (mut pkts, mut c2s, mut s2c) = (0, 0, 0);
    let (mut unknown, mut risky) = ((0, 0), 0);
    let text = std::fs::read_to_string(&json).unwrap();
    for line in text.lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        if v["end_reason"] == "active" {
            continue;
        }
        let u = |k: &str| v[k].as_u64().unwrap();
        let (b, p) = (
            u("c2s_bytes") + u("s2c_bytes"),
            u("c2s_pkts") + u("s2c_pkts"),
        );
        pkts += p;
        c2s += u("c2s_bytes");
        s2c += u("s2c_bytes");
        let app = v["app"].as_str().unwrap();
        if app == "Unknown" {
            unknown.0 += 1;
            unknown.1 += b;
        }
        if v["risks"].as_str().is_some_and(|r| !r.is_empty()) {
            risky += 1;
        }
        let names = [
            app,
            v["category"].as_str().unwrap_or("Unspecified"),
            v["method"].as_str().unwrap_or("(none)"),
        ];
        for (m, name) in by.iter_mut().zip(names) {
            let e = m.entry(name.to_string()).or_default();
            *e = (e.0 + b, e.1 + p, e.2 + 1);
        }
    }
    assert!(by[0].len() > 100, "the corpus names many applications");
    for (m, id) in by.iter().zip(["apps", "categories", "methods"]) {
        let rows = table_rows(&page, id);
        assert!(!rows.is_empty(), "{id}");
        let mut shown = Vec::new();
        for (name, t) in &rows {
            let name = name
                .replace("&lt;", "<")
                .replace("&gt;", ">")
                .replace("&quot;", "\"")
                .replace("&#39;", "'")
                .replace("&amp;", "&");
            assert_eq!(m.get(&name), Some(t), "{id}: {name}");
            shown.push(name);
        }
        let smallest = rows.iter().map(|r| r.1 .0).min().unwrap();
        for (name, t) in m {
            assert!(
                shown.contains(name) || t.0 <= smallest,
                "{id}: {name} ({} bytes) left out, larger than a row shown",
                t.0
            );
        }
        if m.len() <= rows.len() {
            assert_eq!(rows.len(), m.len(), "{id}: every name shown");
        }
    }
    assert_eq!(kpi(&page, "total-pkts"), pkts);
    let attr = |id: &str, name: &str| -> u64 {
        let tag = &page[page.find(&format!("id=\"{id}\"")).unwrap()..];
        let at = format!("{name}=\"");
        let v = &tag[tag.find(&at).unwrap() + at.len()..];
        v[..v.find('"').unwrap()].parse().unwrap()
    };
    assert_eq!(attr("split", "data-c2s-bytes"), c2s);
    assert_eq!(attr("split", "data-s2c-bytes"), s2c);
    assert_eq!(attr("unknown", "data-flows"), unknown.0);
    assert_eq!(attr("unknown", "data-bytes"), unknown.1);
    assert_eq!(attr("risky", "data-flows"), risky);
}
