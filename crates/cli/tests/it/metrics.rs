//! `wirespeed live --metrics`: the run's counters served to Prometheus while it captures. Two
//! network namespaces made by the test, joined by a veth pair with documentation addresses
//! (192.0.2.1 and 192.0.2.2, IPv6 off); `wirespeed live` captures in the second with
//! `--metrics 127.0.0.1:0` (the port it got is on its standard error), the first pings it, and
//! the test scrapes `/metrics` with a plain `TcpStream` GET from inside the namespace (this test
//! binary run there again, `scrape_from_inside`). The text must parse as OpenMetrics (every
//! family declared, samples named by their family and type, label values escaped, `# EOF`
//! last), count at least the packets sent, and show the flow under its application once it
//! ended (`--other-timeout 1`).
//!
//! Needs root, iproute2 and ping; skipped, loudly, without them, and failed under `CI=true`.

use crate::common::netns::Veth;
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// How long the test waits for an event (a line, an answer, a count) before it fails: a
/// failsafe against a hang, never a measure of speed.
const FAILSAFE: Duration = Duration::from_secs(120);

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_wirespeed")
}

/// The variable that makes `scrape_from_inside` scrape (`ADDR PATH`) instead of returning.
const SCRAPE: &str = "WIRESPEED_TEST_SCRAPE";

/// Whether the test can run here (root and its tools); under CI it must.
fn can_run(test: &str) -> bool {
    crate::common::netns::can_run(test, &["ip", "ping"])
}

/// `GET path` on `addr` with a plain TcpStream: the status code and the body.
fn get(addr: &str, path: &str) -> (u16, String) {
    let mut s = TcpStream::connect(addr).unwrap_or_else(|e| panic!("connect {addr}: {e}"));
    s.set_read_timeout(Some(FAILSAFE)).unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nAccept: application/openmetrics-text\r\n\r\n"
    )
    .unwrap();
    let mut text = String::new();
    s.read_to_string(&mut text).unwrap();
    let (head, body) = text.split_once("\r\n\r\n").expect("an HTTP answer");
    let code = head.split(' ').nth(1).and_then(|c| c.parse().ok()).unwrap();
    if code == 200 {
        assert!(
            head.contains(
                "\r\nContent-Type: application/openmetrics-text; version=1.0.0; charset=utf-8\r\n"
            ),
            "{head}"
        );
        assert!(
            head.contains(&format!("\r\nContent-Length: {}\r\n", body.len())),
            "{head}"
        );
    }
    (code, body.to_string())
}

/// Not a test of its own: run by the test below inside the capture's namespace (its loopback is
/// where the endpoint listens), it scrapes and prints what it got between markers.
#[test]
fn scrape_from_inside() {
    let Ok(what) = std::env::var(SCRAPE) else {
        return;
    };
    let (addr, path) = what.split_once(' ').unwrap();
    let (code, body) = get(addr, path);
    print!("<<<{code}\n{body}>>>");
}

/// `GET path` on `addr` from inside namespace `ns`.
fn scrape(ns: &str, addr: &str, path: &str) -> (u16, String) {
    let out = Command::new("ip")
        .args(["netns", "exec", ns])
        .arg(std::env::current_exe().unwrap())
        .args([
            "metrics::scrape_from_inside",
            "--exact",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(SCRAPE, format!("{addr} {path}"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let inner = &text[text.find("<<<").expect("scraped") + 3..text.rfind(">>>").unwrap()];
    let (code, body) = inner.split_once('\n').unwrap();
    (code.parse().unwrap(), body.to_string())
}

/// One sample: its name, labels, value.
type Sample = (String, BTreeMap<String, String>, f64);

/// Parse OpenMetrics text: `# TYPE` before each family's samples (and a family once), `# HELP`
/// and `# UNIT` of the family declared last, every other line `name{labels} value` with the name
/// the family's plus its type's suffix (`_total` for counters, `_info` for info) and label
/// values quoted with only `\\`, `\"` and `\n` escapes; `# EOF` last.
fn parse(text: &str) -> Result<Vec<Sample>, String> {
    let mut lines: Vec<&str> = text.split('\n').collect();
    if lines.pop() != Some("") || lines.pop() != Some("# EOF") {
        return Err("does not end with # EOF and a newline".into());
    }
    let name_ok = |s: &str| {
        !s.is_empty()
            && !s.starts_with(|c: char| c.is_ascii_digit())
            && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    let mut families = BTreeMap::new();
    let mut current: Option<(String, String)> = None;
    let mut out = Vec::new();
    for l in lines {
        if let Some(rest) = l.strip_prefix("# TYPE ") {
            let (name, t) = rest.split_once(' ').ok_or(l)?;
            if !name_ok(name) || !["counter", "gauge", "info"].contains(&t) {
                return Err(format!("bad TYPE: {l}"));
            }
            if families.insert(name.to_string(), t.to_string()).is_some() {
                return Err(format!("family {name} declared twice"));
            }
            current = Some((name.to_string(), t.to_string()));
            continue;
        }
        if let Some(rest) = l.strip_prefix("# HELP ").or(l.strip_prefix("# UNIT ")) {
            let name = rest.split(' ').next().unwrap_or("");
            if current.as_ref().map(|c| c.0.as_str()) != Some(name) {
                return Err(format!("HELP or UNIT of another family: {l}"));
            }
            continue;
        }
        if l.starts_with('#') {
            return Err(format!("unknown comment: {l}"));
        }
        let (fam, t) = current.as_ref().ok_or(format!("sample before TYPE: {l}"))?;
        let (series, value) = l.rsplit_once(' ').ok_or(format!("no value: {l}"))?;
        let value: f64 = value.parse().map_err(|_| format!("bad value: {l}"))?;
        let (name, labels) = match series.split_once('{') {
            Some((n, rest)) => (n, rest.strip_suffix('}').ok_or(format!("{{: {l}"))?),
            None => (series, ""),
        };
        let want = match t.as_str() {
            "counter" => format!("{fam}_total"),
            "info" => format!("{fam}_info"),
            _ => fam.clone(),
        };
        if name != want {
            return Err(format!("sample {name} in family {fam} ({t})"));
        }
        let mut map = BTreeMap::new();
        let mut chars = labels.chars();
        loop {
            let key: String = chars.by_ref().take_while(|&c| c != '=').collect();
            if key.is_empty() {
                break;
            }
            if !name_ok(&key) || chars.next() != Some('"') {
                return Err(format!("bad label: {l}"));
            }
            let mut v = String::new();
            loop {
                match chars.next() {
                    Some('\\') => match chars.next() {
                        Some('\\') => v.push('\\'),
                        Some('"') => v.push('"'),
                        Some('n') => v.push('\n'),
                        _ => return Err(format!("bad escape: {l}")),
                    },
                    Some('"') => break,
                    Some(c) => v.push(c),
                    None => return Err(format!("unterminated label value: {l}")),
                }
            }
            map.insert(key, v);
            match chars.next() {
                Some(',') => {}
                None => break,
                Some(_) => return Err(format!("bad label list: {l}")),
            }
        }
        out.push((name.to_string(), map, value));
    }
    Ok(out)
}

/// The value of the sample `name` with these labels (among others).
fn value(samples: &[Sample], name: &str, labels: &[(&str, &str)]) -> Option<f64> {
    samples
        .iter()
        .find(|(n, l, _)| {
            n == name
                && labels
                    .iter()
                    .all(|(k, v)| l.get(*k).map(String::as_str) == Some(*v))
        })
        .map(|s| s.2)
}

#[test]
fn live_serves_its_counters_to_prometheus() {
    if !can_run("live_serves_its_counters_to_prometheus") {
        return;
    }
    let v = Veth::new("wsm", "", Some(["192.0.2.1/24", "192.0.2.2/24"]))
        .unwrap_or_else(|e| panic!("{e}"));
    let out = std::env::temp_dir().join(format!("wirespeed-metrics-{}.json", std::process::id()));
    let mut live = Command::new("ip")
        .args(["netns", "exec", &v.ns[1], bin(), "live", "-i", &v.dev[1]])
        // Stopped by SIGTERM at the end; its own end is a failsafe.
        .args(["--workers", "2", "--status", "0", "--duration", "600"])
        .args(["--metrics", "127.0.0.1:0", "--other-timeout", "1"])
        .arg("-o")
        .arg(&out)
        .stderr(Stdio::piped())
        .spawn()
        .expect("start wirespeed live");
    let (tx, rx) = mpsc::channel();
    let err = live.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut all = String::new();
        for l in BufReader::new(err).lines().map_while(Result::ok) {
            if let Some(rest) = l.strip_prefix("metrics: serving http://") {
                let _ = tx.send(rest.trim_end_matches("/metrics").to_string());
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
        .expect("no metrics address from wirespeed live");
    assert!(
        rx.recv_timeout(FAILSAFE).is_ok(),
        "wirespeed live did not start capturing"
    );
    // Before any traffic: well formed, every family there.
    let (code, body) = scrape(&v.ns[1], &addr, "/metrics");
    assert_eq!(code, 200, "{body}");
    let before = parse(&body).unwrap_or_else(|e| panic!("{e}\n{body}"));
    for name in [
        "wirespeed_packets_total",
        "wirespeed_bytes_total",
        "wirespeed_flows_created_total",
        "wirespeed_flows_ended_total",
        "wirespeed_flows_active",
        "wirespeed_kernel_packets_total",
        "wirespeed_kernel_dropped_packets_total",
        "wirespeed_output_dropped_records_total",
        "wirespeed_output_queued_records",
    ] {
        assert!(value(&before, name, &[]).is_some(), "{name}\n{body}");
    }
    assert!(value(
        &before,
        "wirespeed_dropped_packets_total",
        &[("reason", "not_ip")]
    )
    .is_some());
    assert_eq!(scrape(&v.ns[1], &addr, "/elsewhere").0, 404);
    // 5 pings: 10 packets on the capture's end, one ICMP flow that ends a second after.
    const PINGS: f64 = 5.0;
    let p = Command::new("ip")
        .args([
            "netns", "exec", &v.ns[0], "ping", "-c", "5", "-i", "0.2", "-W", "2",
        ])
        .arg("192.0.2.2")
        .output()
        .unwrap();
    assert!(p.status.success(), "{}", String::from_utf8_lossy(&p.stdout));
    let t = Instant::now();
    let (samples, body) = loop {
        let (code, body) = scrape(&v.ns[1], &addr, "/metrics");
        assert_eq!(code, 200, "{body}");
        let s = parse(&body).unwrap_or_else(|e| panic!("{e}\n{body}"));
        let packets = value(&s, "wirespeed_packets_total", &[]).unwrap_or(0.0);
        let icmp = value(&s, "wirespeed_app_flows_total", &[("app", "ICMP")]).unwrap_or(0.0);
        if packets >= 2.0 * PINGS && icmp >= 1.0 {
            break (s, body);
        }
        assert!(
            t.elapsed() < FAILSAFE,
            "the pings did not show within {FAILSAFE:?}:\n{body}"
        );
        std::thread::sleep(Duration::from_millis(500));
    };
    let v_ = |name: &str, labels: &[(&str, &str)]| value(&samples, name, labels).unwrap_or(0.0);
    assert!(
        v_("wirespeed_kernel_packets_total", &[]) >= 2.0 * PINGS,
        "{body}"
    );
    assert!(
        v_("wirespeed_bytes_total", &[]) >= 2.0 * PINGS * 98.0,
        "{body}"
    );
    assert!(v_("wirespeed_flows_created_total", &[]) >= 1.0, "{body}");
    assert!(v_("wirespeed_flows_ended_total", &[]) >= 1.0, "{body}");
    assert!(
        v_(
            "wirespeed_app_packets_total",
            &[("app", "ICMP"), ("master", "ICMP")]
        ) >= 2.0 * PINGS,
        "{body}"
    );
    assert!(
        v_("wirespeed_app_bytes_total", &[("app", "ICMP")]) >= 2.0 * PINGS * 98.0,
        "{body}"
    );
    assert_eq!(
        v_("wirespeed_build_info", &[("mode", "live")]),
        1.0,
        "{body}"
    );
    // Stopped: the run ends as without the endpoint, its summary agreeing.
    let log = crate::common::netns::stop_live(live, reader);
    let records = std::fs::read_to_string(&out).unwrap();
    let _ = std::fs::remove_file(&out);
    assert!(records.contains("\"app\":\"ICMP\""), "{records}");
    eprintln!(
        "metrics: {} samples; {} packets, {} ICMP flows\n{log}",
        samples.len(),
        v_("wirespeed_packets_total", &[]),
        v_("wirespeed_app_flows_total", &[("app", "ICMP")])
    );
}
