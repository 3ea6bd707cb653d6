//! `wirespeed live --http`: the live page and its `/live.json`, served while it captures. Two
//! network namespaces made by the test, joined by a veth pair with no addresses (IPv6 off in
//! both); `wirespeed live` captures in the second with `--http 127.0.0.1:0` (the port it got is
//! on its standard error), a corpus capture is replayed into the first with `wirespeed replay`,
//! and the test fetches the page and the JSON with a plain `TcpStream` GET from inside the
//! capture's namespace (this test binary run there again, `fetch_from_inside`). Once every flow
//! ended (idle timeouts of a second), `/live.json` must count the frames replayed, no kernel
//! drop, and per application the flows, packets and bytes `wirespeed classify` finds in the same
//! file; its newest risky flows must be the file's risky flows. The page must carry its
//! Content-Security-Policy and no URL of anywhere else.
//!
//! A second run with idle timeouts of 10 minutes shows that flows count while still open: a
//! capture replayed into it is all in `/live.json`'s open flows, none ended. With Debian's
//! chromium, that page is opened headless inside the namespace (scripts/live_browser.py,
//! DevTools over a pipe) before the replay: it must show the capture's main application with
//! all its bytes, ask for nothing but its own server, and log no error; a screenshot is kept.
//!
//! Needs root and iproute2 (and chromium for the browser part); skipped, loudly, without them,
//! and failed under `CI=true`.

use crate::common::netns::Veth;
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// How long the test waits for an event (a line, an answer, a count) before it fails: a
/// failsafe against a hang, never a measure of speed.
const FAILSAFE: Duration = Duration::from_secs(120);

/// The variable that makes `fetch_from_inside` fetch (`ADDR PATH`) instead of returning.
const FETCH: &str = "WIRESPEED_TEST_LIVE_PAGE_FETCH";

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_wirespeed")
}

/// Whether the test can run here (root and its tools); under CI it must.
fn can_run(test: &str) -> bool {
    crate::common::netns::can_run(test, &["ip"])
}

/// Not a test of its own: run by the test below inside the capture's namespace (its loopback is
/// where the page is served), it fetches `PATH` with a plain GET and prints the whole answer
/// (head and body) between markers.
#[test]
fn fetch_from_inside() {
    let Ok(what) = std::env::var(FETCH) else {
        return;
    };
    let (addr, path) = what.split_once(' ').unwrap();
    let mut s = TcpStream::connect(addr).unwrap_or_else(|e| panic!("connect {addr}: {e}"));
    s.set_read_timeout(Some(FAILSAFE)).unwrap();
    write!(s, "GET {path} HTTP/1.1\r\nHost: {addr}\r\n\r\n").unwrap();
    let mut text = String::new();
    s.read_to_string(&mut text).unwrap();
    print!("<<<{text}>>>");
}

/// `GET path` on `addr` from inside namespace `ns`: the status, the head, the body.
fn fetch(ns: &str, addr: &str, path: &str) -> (u16, String, String) {
    let out = Command::new("ip")
        .args(["netns", "exec", ns])
        .arg(std::env::current_exe().unwrap())
        .args([
            "live_page::fetch_from_inside",
            "--exact",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(FETCH, format!("{addr} {path}"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let inner = &text[text.find("<<<").expect("fetched") + 3..text.rfind(">>>").unwrap()];
    let (head, body) = inner.split_once("\r\n\r\n").expect("an HTTP answer");
    let code = head.split(' ').nth(1).and_then(|c| c.parse().ok()).unwrap();
    assert!(
        head.contains(&format!("\r\nContent-Length: {}\r\n", body.len())),
        "{head}"
    );
    (code, head.to_string(), body.to_string())
}

/// `/live.json` now, parsed (from inside namespace `ns`; inline.rs asks it too).
pub(crate) fn live_json(ns: &str, addr: &str) -> serde_json::Value {
    let (code, head, body) = fetch(ns, addr, "/live.json");
    assert_eq!(code, 200, "{head}\n{body}");
    assert!(
        head.contains("\r\nContent-Type: application/json\r\n"),
        "{head}"
    );
    serde_json::from_str(&body).unwrap_or_else(|e| panic!("{e}: {body}"))
}

/// Flows, packets and bytes by application (`app`) of records.
type ByApp = BTreeMap<String, [u64; 3]>;

/// What `wirespeed classify` finds in `file`: by application, and its risky flows' hosts
/// (`sni`, else `http_host`, else `dns_query`) with their risks.
fn offline(file: &Path) -> (ByApp, Vec<(String, Vec<String>)>) {
    let out = Command::new(bin())
        .args(["classify", "-q"])
        .arg(file)
        .output()
        .unwrap();
    assert!(out.status.success());
    let mut apps = ByApp::new();
    let mut risky = Vec::new();
    for l in String::from_utf8_lossy(&out.stdout).lines() {
        let r: serde_json::Value = serde_json::from_str(l).unwrap();
        let n = |k: &str| r[k].as_u64().unwrap();
        let e = apps
            .entry(r["app"].as_str().unwrap().to_string())
            .or_default();
        e[0] += 1;
        e[1] += n("c2s_pkts") + n("s2c_pkts");
        e[2] += n("c2s_bytes") + n("s2c_bytes");
        let risks: Vec<String> = match &r["risks"] {
            serde_json::Value::Array(a) => a.iter().map(|x| x.as_str().unwrap().into()).collect(),
            serde_json::Value::String(s) if !s.is_empty() => {
                s.split(';').map(str::to_string).collect()
            }
            _ => Vec::new(),
        };
        if !risks.is_empty() {
            let host = ["sni", "http_host", "dns_query"]
                .iter()
                .find_map(|k| r[k].as_str().filter(|s| !s.is_empty()))
                .unwrap_or("");
            risky.push((host.to_string(), risks));
        }
    }
    (apps, risky)
}

/// The applications of a `/live.json` (its top ones; the test's files have fewer): of the flows
/// ended.
fn live_apps(j: &serde_json::Value) -> ByApp {
    assert_eq!(j["others"]["apps"], 0, "{j}");
    j["apps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            let n = |k: &str| a[k].as_u64().unwrap();
            (
                a["app"].as_str().unwrap().to_string(),
                [n("flows"), n("packets"), n("bytes")],
            )
        })
        .collect()
}

/// Replay `file` from the first namespace's end at 20,000 packets a second; the frames sent.
fn replay(v: &Veth, file: &Path) -> u64 {
    let r = Command::new("ip")
        .args(["netns", "exec", &v.ns[0], bin(), "replay", "-i", &v.dev[0]])
        .args(["--pps", "20000"])
        .arg(file)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(r.status.success(), "{err}");
    err.lines()
        .find_map(|l| l.strip_prefix("replay: ")?.split(' ').next()?.parse().ok())
        .unwrap_or_else(|| panic!("no replay: line in {err}"))
}

/// Wait until `/live.json` says every flow of `frames` replayed packets ended: `flows` flows
/// ended, none open; the JSON then.
fn settled(v: &Veth, addr: &str, frames: u64, flows: u64) -> serde_json::Value {
    let t = Instant::now();
    loop {
        let j = live_json(&v.ns[1], addr);
        if j["packets"].as_u64() == Some(frames)
            && j["flows_ended"].as_u64() == Some(flows)
            && j["active_flows"] == 0
        {
            return j;
        }
        assert!(
            t.elapsed() < FAILSAFE,
            "the replay did not settle within {FAILSAFE:?} ({frames} frames, {flows} flows): {j}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// `wirespeed live` capturing in the second namespace with `--http 127.0.0.1:0` and idle
/// timeouts of `timeout` seconds; the process, its standard error's collector, and the page's
/// address.
fn start_live(
    v: &Veth,
    out: &Path,
    timeout: &str,
) -> (Child, std::thread::JoinHandle<String>, String) {
    let mut live = Command::new("ip")
        .args(["netns", "exec", &v.ns[1], bin(), "live", "-i", &v.dev[1]])
        // Stopped by SIGTERM at the end; its own end is a failsafe.
        .args(["--workers", "2", "--status", "0", "--duration", "600"])
        .args(["--http", "127.0.0.1:0"])
        .args(["--tcp-timeout", timeout, "--udp-timeout", timeout])
        .args(["--other-timeout", timeout, "--closed-timeout", timeout])
        .arg("-o")
        .arg(out)
        .stderr(Stdio::piped())
        .spawn()
        .expect("start wirespeed live");
    let (tx, rx) = mpsc::channel();
    let err = live.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut all = String::new();
        for l in BufReader::new(err).lines().map_while(Result::ok) {
            if let Some(rest) = l.strip_prefix("live page: serving http://") {
                let _ = tx.send(rest.trim_end_matches('/').to_string());
            }
            if l.starts_with("live: ready") {
                let _ = tx.send(String::new());
            }
            all.push_str(&l);
            all.push('\n');
        }
        all
    });
    let addr = rx
        .recv_timeout(FAILSAFE)
        .expect("no page address from wirespeed live");
    assert!(
        rx.recv_timeout(FAILSAFE).is_ok(),
        "wirespeed live did not start capturing"
    );
    (live, reader, addr)
}

#[test]
fn live_serves_its_page_and_json() {
    if !can_run("live_serves_its_page_and_json") {
        return;
    }
    let Some(corpus) = wirespeed_testkit::corpus("live_page") else {
        return;
    };
    let corpus = corpus.pcap_dir();
    let v = Veth::new("wsl", "", None).unwrap_or_else(|e| panic!("{e}"));
    let out = crate::common::temp("live.json");
    let (live, reader, addr) = start_live(&v, &out, "1");
    // The page: HTML with its policy; the JSON before any traffic.
    let (code, head, html) = fetch(&v.ns[1], &addr, "/");
    assert_eq!(code, 200, "{head}");
    assert!(
        head.contains("\r\nContent-Type: text/html; charset=utf-8\r\n"),
        "{head}"
    );
    assert!(
        head.contains("\r\nContent-Security-Policy: default-src 'none'; ")
            && head.contains("connect-src 'self'"),
        "{head}"
    );
    assert!(html.contains("fetch(\"/live.json\""), "{html}");
    assert!(!html
        .replace("http://www.w3.org/2000/svg", "")
        .contains("http"));
    let j = live_json(&v.ns[1], &addr);
    assert_eq!(
        (j["mode"].as_str(), j["packets"].as_u64()),
        (Some("live"), Some(0))
    );
    assert!(j["rules"].is_null(), "{j}");
    assert_eq!(fetch(&v.ns[1], &addr, "/nowhere").0, 404);
    assert_eq!(fetch(&v.ns[1], &addr, "/metrics").0, 200);
    // A capture with risky flows, then another: the totals per application are the files'.
    let mut want = ByApp::new();
    let mut want_risky = Vec::new();
    let (mut frames, mut flows) = (0, 0);
    let mut j = j;
    for name in ["WebattackRCE.pcap", "dns_ambiguous_names.pcap"] {
        let file: PathBuf = corpus.join(name);
        let (apps, risky) = offline(&file);
        for (app, n) in apps {
            let e = want.entry(app).or_default();
            for k in 0..3 {
                e[k] += n[k];
            }
            flows += n[0];
        }
        want_risky.extend(risky);
        frames += replay(&v, &file);
        j = settled(&v, &addr, frames, flows);
        assert_eq!(live_apps(&j), want, "{name}: {j}");
        // Every flow ended: none open in any row.
        assert_eq!(j["open_counted"], true, "{j}");
        for a in j["apps"].as_array().unwrap() {
            assert_eq!(
                (&a["open_flows"], &a["open_bytes"]),
                (&0.into(), &0.into()),
                "{j}"
            );
        }
    }
    assert_eq!(j["drops"]["kernel"], 0, "{j}");
    assert_eq!(j["drops"]["output_records"], 0, "{j}");
    // The newest risky flows: the files' own, as many as the ring keeps.
    assert_eq!(
        j["risky_seen"].as_u64(),
        Some(want_risky.len() as u64),
        "{j}"
    );
    let risky = j["risky"].as_array().unwrap();
    assert_eq!(risky.len(), want_risky.len().min(32), "{j}");
    let mut got: Vec<(String, Vec<String>)> = risky
        .iter()
        .map(|f| {
            let risks = f["risks"].as_array().unwrap();
            (
                f["host"].as_str().unwrap().to_string(),
                risks.iter().map(|r| r.as_str().unwrap().into()).collect(),
            )
        })
        .collect();
    got.sort();
    let mut all = want_risky.clone();
    all.sort();
    for g in &got {
        assert!(
            all.contains(g),
            "{g:?} not among the files' risky flows {all:?}"
        );
    }
    let log = crate::common::netns::stop_live(live, reader);
    let _ = std::fs::remove_file(&out);
    eprintln!(
        "live_page: {frames} frames, {flows} flows, {} applications, {} risky flows\n{log}",
        want.len(),
        want_risky.len()
    );
}

/// Flows still open count now: with idle timeouts of 10 minutes, a capture replayed shows in
/// `/live.json` as open flows, every byte of it; a browser on the page sees its application.
#[test]
fn open_flows_show_before_they_end() {
    if !can_run("open_flows_show_before_they_end") {
        return;
    }
    let Some(corpus) = wirespeed_testkit::corpus("live_page open") else {
        return;
    };
    let file = corpus.pcap_dir().join("chrome.pcap");
    let (apps, _) = offline(&file);
    let (flows, bytes) = apps.values().fold((0, 0), |(f, b), n| (f + n[0], b + n[2]));
    let v = Veth::new("wsl", "o", None).unwrap_or_else(|e| panic!("{e}"));
    let out = crate::common::temp("open.json");
    let (live, reader, addr) = start_live(&v, &out, "600");
    // With chromium: the page open before the traffic sees the application's bytes.
    let browsed = browser(&v, &addr, &file, &apps);
    let frames = match browsed {
        Some(frames) => frames,
        None => replay(&v, &file),
    };
    let t = Instant::now();
    let j = loop {
        let j = live_json(&v.ns[1], &addr);
        let open: u64 = j["apps"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a["open_bytes"].as_u64().unwrap())
            .sum();
        if j["packets"].as_u64() == Some(frames) && open == bytes {
            break j;
        }
        assert!(
            t.elapsed() < FAILSAFE,
            "the open flows did not show within {FAILSAFE:?}: {j}"
        );
        std::thread::sleep(Duration::from_millis(200));
    };
    assert_eq!(j["open_counted"], true, "{j}");
    assert_eq!(j["active_flows"].as_u64(), Some(flows), "{j}");
    assert_eq!(j["flows_ended"], 0, "{j}");
    let open_flows: u64 = j["apps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["open_flows"].as_u64().unwrap())
        .sum();
    assert_eq!(open_flows, flows, "{j}");
    let log = crate::common::netns::stop_live(live, reader);
    let _ = std::fs::remove_file(&out);
    eprintln!("live_page open: {frames} frames, {flows} open flows, {bytes} bytes\n{log}");
}

/// Debian's chromium, or `SKIPPED` (a failure under `CI=true`).
fn chromium(test: &str) -> bool {
    crate::common::tools(test, &["chromium", "python3"])
}

/// Chromium headless in the capture's namespace on the page (scripts/live_browser.py): once it
/// has drawn the page, `file` (whose applications are `apps`) is replayed; the page must show
/// its application with the most bytes, every byte of it (open or ended), ask for nothing but
/// its own server, and log no error. Its screenshot is kept in the test's folder. The frames
/// replayed; None without chromium (nothing replayed).
fn browser(v: &Veth, addr: &str, file: &Path, apps: &ByApp) -> Option<u64> {
    if !chromium("live_page browser") {
        return None;
    }
    let (app, n) = apps
        .iter()
        .max_by_key(|(_, n)| n[2])
        .map(|(a, n)| (a.clone(), *n))
        .unwrap();
    let shot = crate::common::temp("live.png");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/live_browser.py");
    let mut b = Command::new("ip")
        .args(["netns", "exec", &v.ns[1], "python3"])
        .arg(&script)
        .arg(format!("http://{addr}/"))
        .arg(&shot)
        .arg(&app)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start scripts/live_browser.py");
    let mut lines = BufReader::new(b.stdout.take().unwrap()).lines();
    let first = lines.next().and_then(Result::ok).unwrap_or_default();
    assert_eq!(first, "READY", "the browser did not draw the page");
    let frames = replay(v, file);
    // Told once the traffic is sent: it waits for the page to show the application's bytes.
    let mut stdin = b.stdin.take().unwrap();
    writeln!(stdin, "GO {}", n[2]).unwrap();
    drop(stdin);
    let rest: String = lines.map_while(Result::ok).collect();
    let st = b.wait().unwrap();
    let mut err = String::new();
    let _ = b.stderr.take().unwrap().read_to_string(&mut err);
    assert!(st.success(), "{rest}\n{err}");
    let r: serde_json::Value =
        serde_json::from_str(&rest).unwrap_or_else(|e| panic!("{e}: {rest}\n{err}"));
    assert_eq!(r["seen"], true, "{app} not shown with its bytes: {r}");
    let origin = format!("http://{addr}/");
    for u in r["requests"].as_array().unwrap() {
        let u = u.as_str().unwrap();
        assert!(
            u == origin || u == format!("{origin}live.json"),
            "a request to {u}: {r}"
        );
    }
    assert!(r["requests"].as_array().unwrap().len() >= 2, "{r}");
    assert_eq!(r["errors"], serde_json::json!([]), "{r}");
    eprintln!(
        "live_page browser: {frames} frames of {}; {app} shown {} ms after the replay ended; \
         screenshot {}",
        file.display(),
        r["ms"],
        shot.display()
    );
    Some(frames)
}
