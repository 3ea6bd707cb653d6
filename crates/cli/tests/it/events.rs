//! `--events FILE` (docs/EVENTS.md): the DNS, HTTP and TLS transaction events of `classify`
//! against tshark's dissection of the same corpus captures, the independent truth:
//!
//! - DNS: the set of (question name, transaction id) of every DNS, mDNS and LLMNR message that
//!   has a question (`tshark -Y "(dns || mdns || llmnr) && dns.count.queries > 0" -T fields -e
//!   dns.qry.name -e dns.id`), against the events' (`query`, `trans_id`): a query and its answer
//!   are one event, so one pair each;
//! - HTTP: the multiset of (method, Host, URI) of every request over TCP (`-Y "http.request &&
//!   tcp"`, fields `http.request.method`, `http.host`, `http.request.uri`), every request of a
//!   persistent connection included, against the events'; a URI the event cut at its cap
//!   (`truncated`) matches a longer one it starts;
//! - TLS: the multiset of SNIs of the ClientHellos over TCP, one per TCP stream (a TLS 1.3
//!   HelloRetryRequest makes a second ClientHello in the same handshake, which is one event),
//!   against the events that read a ClientHello (a `ja3`, `ja4` or `sni`).
//!
//! Each agreement (shared / union) must reach its floor, and every difference is listed in the
//! failure message. Every event's `flow_id` must name a record of the same run with the same
//! end-points, every event must have its type's keys in order, and the records must be the same
//! as without `--events`. Skipped with a message without tshark or the corpus (failing under
//! `CI=true`, the `tools()` and `corpus()` convention).

use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;
use std::process::Command;

use crate::common::{bin, demo, ok, temp, tools};

/// Captures with several DNS transactions on a flow, several HTTP requests per connection
/// (1kxun's 28 persistent connections, http_ua_splitted_in_two_pkts' 37 requests in one),
/// WebDAV, and TLS handshakes.
const CAPTURES: &[&str] = &[
    "1kxun.pcap",
    "quickplay.pcap",
    "netflix.pcap",
    "webdav.pcap",
    "http_ua_splitted_in_two_pkts.pcapng",
    "ocsp.pcapng",
    "teams.pcap",
    "android.pcap",
    "iphone.pcap",
    "KakaoTalk_chat.pcap",
    "dns-google-nsid.pcapng",
    "reddit.pcap",
    "webex.pcap",
    "http_connect.pcap",
];

/// Floors of agreement with tshark over all of [`CAPTURES`] (measured: see the module's
/// documentation and docs/EVENTS.md).
const FLOOR_DNS: f64 = 0.98;
const FLOOR_HTTP: f64 = 0.98;
const FLOOR_TLS: f64 = 0.98;

/// JSON lines of a file.
fn lines(p: &Path) -> Vec<Value> {
    std::fs::read_to_string(p)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// tshark's fields (tab-separated, first occurrence of each) of the packets `filter` keeps.
fn tshark(file: &Path, filter: &str, fields: &[&str]) -> Vec<Vec<String>> {
    let mut cmd = Command::new("tshark");
    cmd.arg("-r")
        .arg(file)
        .args(["-Y", filter, "-T", "fields", "-E", "occurrence=f"]);
    for f in fields {
        cmd.args(["-e", f]);
    }
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| l.split('\t').map(String::from).collect())
        .collect()
}

fn text(v: &Value) -> String {
    v.as_str().unwrap_or_default().to_string()
}

/// Every event joins a record of the same run (its `flow_id`, with the same end-points) and has
/// its type's keys, in order.
fn check_events(events: &[Value], records: &[Value], what: &str) {
    let by_id: HashMap<u64, &Value> = records
        .iter()
        .map(|r| (r["flow_id"].as_u64().unwrap(), r))
        .collect();
    for e in events {
        let id = e["flow_id"].as_u64().unwrap();
        let r = by_id
            .get(&id)
            .unwrap_or_else(|| panic!("{what}: no record with flow_id {id}: {e}"));
        for k in ["src_ip", "src_port", "dst_ip", "dst_port", "l4"] {
            assert_eq!(e[k], r[k], "{what}: {k} of {e} against its record");
        }
        // (A `Value`'s keys are sorted: the order is checked on the text, in the demo's test.)
        let keys: BTreeSet<&str> = e.as_object().unwrap().keys().map(String::as_str).collect();
        let want = wirespeed_export::events::keys(e["event_type"].as_str().unwrap());
        assert_eq!(keys, want.into_iter().collect(), "{what}: keys of {e}");
    }
}

/// Shared / union of two multisets, and the differences (tshark's only, ours only).
fn agree(
    theirs: &BTreeMap<String, usize>,
    ours: &BTreeMap<String, usize>,
) -> (usize, usize, Vec<String>) {
    let (mut shared, mut union, mut diff) = (0, 0, Vec::new());
    for k in theirs.keys().chain(ours.keys()).collect::<BTreeSet<_>>() {
        let (t, o) = (
            theirs.get(k).copied().unwrap_or(0),
            ours.get(k).copied().unwrap_or(0),
        );
        shared += t.min(o);
        union += t.max(o);
        if t > o {
            diff.push(format!("only tshark ×{}: {k}", t - o));
        } else if o > t {
            diff.push(format!("only wirespeed ×{}: {k}", o - t));
        }
    }
    (shared, union, diff)
}

fn count<I: IntoIterator<Item = String>>(it: I) -> BTreeMap<String, usize> {
    let mut m = BTreeMap::new();
    for k in it {
        *m.entry(k).or_insert(0) += 1;
    }
    m
}

#[test]
fn events_agree_with_tshark_and_join_the_records() {
    if !tools("events_agree_with_tshark", &["tshark"]) {
        return;
    }
    let Some(corpus) = wirespeed_testkit::corpus("events_agree_with_tshark") else {
        return;
    };
    let mut totals: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    let mut diffs: Vec<String> = Vec::new();
    let mut lines_out = Vec::new();
    for name in CAPTURES {
        let file = corpus.pcap(name);
        let (rec, ev, rec_off) = (
            temp(&format!("{name}.rec")),
            temp(&format!("{name}.ev")),
            temp(&format!("{name}.off")),
        );
        ok(bin()
            .args(["classify", "-q", "--workers", "1", "-o"])
            .arg(&rec)
            .arg("--events")
            .arg(&ev)
            .arg(&file));
        ok(bin()
            .args(["classify", "-q", "--workers", "1", "-o"])
            .arg(&rec_off)
            .arg(&file));
        assert_eq!(
            std::fs::read(&rec).unwrap(),
            std::fs::read(&rec_off).unwrap(),
            "{name}: the records differ with --events"
        );
        let (records, events) = (lines(&rec), lines(&ev));
        check_events(&events, &records, name);
        let of = |t: &'static str| events.iter().filter(move |e| e["event_type"] == t);

        // DNS: (name, id) of every message with a question; tshark writes the root `<Root>`.
        let theirs = tshark(
            &file,
            "(dns || mdns || llmnr) && dns.count.queries > 0",
            &["dns.qry.name", "dns.id"],
        );
        let theirs: BTreeSet<String> = theirs
            .iter()
            .filter(|r| r.len() == 2)
            .map(|r| {
                let id = u16::from_str_radix(r[1].trim_start_matches("0x"), 16).unwrap();
                format!("{} #{id}", r[0])
            })
            .collect();
        let ours: BTreeSet<String> = of("dns")
            .filter(|e| e["query"].is_string())
            .map(|e| {
                let q = text(&e["query"]).replace("<root>", "<Root>");
                format!("{q} #{}", e["trans_id"])
            })
            .collect();
        let dns = agree(&count(theirs), &count(ours));

        // HTTP: every request over TCP.
        let theirs = tshark(
            &file,
            "http.request && tcp",
            &["http.request.method", "http.host", "http.request.uri"],
        );
        let theirs: Vec<(String, String, String)> = theirs
            .into_iter()
            .map(|mut r| {
                r.resize(3, String::new());
                (r[0].clone(), r[1].clone(), r[2].clone())
            })
            .collect();
        let mut left = count(theirs.iter().map(|(m, h, u)| format!("{m} {h} {u}")));
        let mut ours = Vec::new();
        for e in of("http").filter(|e| e["method"].is_string()) {
            let (m, h, u) = (text(&e["method"]), text(&e["host"]), text(&e["uri"]));
            let mut key = format!("{m} {h} {u}");
            if e["truncated"] == true {
                // A URI cut at its cap: the longer one it starts, still unmatched.
                if let Some((tm, th, tu)) = theirs.iter().find(|(tm, th, tu)| {
                    *tm == m
                        && *th == h
                        && tu.starts_with(&u)
                        && left.get(&format!("{tm} {th} {tu}")).is_some_and(|n| *n > 0)
                }) {
                    key = format!("{tm} {th} {tu}");
                }
            }
            if let Some(n) = left.get_mut(&key) {
                *n = n.saturating_sub(1);
            }
            ours.push(key);
        }
        let theirs = count(theirs.iter().map(|(m, h, u)| format!("{m} {h} {u}")));
        let http = agree(&theirs, &count(ours));

        // TLS: one ClientHello per TCP stream.
        let theirs = tshark(
            &file,
            "tls.handshake.type == 1 && tcp",
            &["tcp.stream", "tls.handshake.extensions_server_name"],
        );
        let theirs: BTreeSet<(String, String)> = theirs
            .into_iter()
            .map(|mut r| {
                r.resize(2, String::new());
                (r[0].clone(), r[1].clone())
            })
            .collect();
        let theirs = count(theirs.into_iter().map(|(_, sni)| sni));
        // An event read from a ClientHello has one of these (one from a ServerHello alone, the
        // capture begun after the ClientHello, has none).
        let client = |e: &&Value| ["ja3", "ja4", "sni"].iter().any(|k| e[*k].is_string());
        let ours = count(of("tls").filter(client).map(|e| text(&e["sni"])));
        let tls = agree(&theirs, &ours);

        for (kind, (shared, union, diff)) in [("dns", dns), ("http", http), ("tls", tls)] {
            let t = totals.entry(kind).or_default();
            t.0 += shared;
            t.1 += union;
            if union > 0 {
                lines_out.push(format!("{name} {kind}: {shared}/{union}"));
            }
            diffs.extend(diff.into_iter().map(|d| format!("{name} {kind}: {d}")));
        }
    }
    let mut report = lines_out.join("\n");
    for (kind, (shared, union)) in &totals {
        report.push_str(&format!(
            "\n{kind}: {shared}/{union} = {:.4}",
            *shared as f64 / (*union).max(1) as f64
        ));
    }
    eprintln!("{report}");
    for (kind, floor) in [("dns", FLOOR_DNS), ("http", FLOOR_HTTP), ("tls", FLOOR_TLS)] {
        let (shared, union) = totals.get(kind).copied().unwrap_or_default();
        assert!(
            union > 50,
            "{kind}: too few transactions to compare ({union})"
        );
        let r = shared as f64 / union as f64;
        assert!(
            r >= floor,
            "{kind}: {shared}/{union} = {r:.4} agree with tshark, under {floor}\n{report}\n\
             every difference:\n{}",
            diffs.join("\n")
        );
    }
    // The differences there are, for the reader of the test's output.
    eprintln!("differences:\n{}", diffs.join("\n"));
}

/// The records of the whole corpus are the same with `--events` as without (one worker, so in
/// the same order), and every event joins one of them.
#[test]
fn events_leave_the_corpus_records_as_they_are() {
    let Some(corpus) = wirespeed_testkit::corpus("events_leave_the_records") else {
        return;
    };
    let (on, off, ev) = (temp("all.on"), temp("all.off"), temp("all.ev"));
    for (out, events) in [(&on, true), (&off, false)] {
        let mut cmd = bin();
        cmd.args(["classify", "-q", "--workers", "1", "-o"])
            .arg(out);
        if events {
            cmd.arg("--events").arg(&ev);
        }
        // Damaged captures make the exit 1; their good packets are read all the same.
        let st = cmd.arg(corpus.pcap_dir()).status().unwrap();
        assert!(matches!(st.code(), Some(0 | 1)), "{st}");
    }
    assert!(
        std::fs::read(&on).unwrap() == std::fs::read(&off).unwrap(),
        "the corpus records differ with --events"
    );
    let (records, events) = (lines(&on), lines(&ev));
    check_events(&events, &records, "corpus");
    assert!(events.len() > 2500, "{} events", events.len());
}

/// On the generated demo (no corpus, no tshark needed): DNS and HTTP events, each with
/// its type's keys, each joined to its flow's record, the same with 1 and 3 workers (but for
/// `flow_id`), and the records the same as without `--events`.
#[test]
fn demo_events_join_their_records_whatever_the_workers() {
    let pcap = demo("events-demo.pcap");
    let mut seen: Vec<BTreeMap<String, usize>> = Vec::new();
    for workers in ["1", "3"] {
        let (rec, ev, off) = (
            temp(&format!("events-demo-{workers}.rec")),
            temp(&format!("events-demo-{workers}.ev")),
            temp(&format!("events-demo-{workers}.off")),
        );
        ok(bin()
            .args(["classify", "-q", "--workers", workers, "-o"])
            .arg(&rec)
            .arg("--events")
            .arg(&ev)
            .arg(&pcap));
        ok(bin()
            .args(["classify", "-q", "--workers", workers, "-o"])
            .arg(&off)
            .arg(&pcap));
        let (records, events) = (lines(&rec), lines(&ev));
        let sorted = |p: &Path| {
            let mut l: Vec<String> = std::fs::read_to_string(p)
                .unwrap()
                .lines()
                .map(String::from)
                .collect();
            l.sort();
            l
        };
        assert_eq!(sorted(&rec), sorted(&off), "records differ with --events");
        check_events(&events, &records, "demo");
        // (The demo's TLS flow carries no real ClientHello: no handshake event.)
        for t in ["dns", "http"] {
            assert!(
                events.iter().any(|e| e["event_type"] == t),
                "no {t} event in the demo"
            );
        }
        // Each event's keys are in its type's order.
        let raw = std::fs::read_to_string(&ev).unwrap();
        for l in raw.lines() {
            let v: Value = serde_json::from_str(l).unwrap();
            let want = wirespeed_export::events::keys(v["event_type"].as_str().unwrap());
            let mut at = 0;
            for k in want {
                let i = l[at..]
                    .find(&format!("\"{k}\":"))
                    .unwrap_or_else(|| panic!("{k} out of order in {l}"));
                at += i;
            }
        }
        seen.push(count(events.into_iter().map(|mut e| {
            e.as_object_mut().unwrap().remove("flow_id");
            e.to_string()
        })));
    }
    assert_eq!(seen[0], seen[1], "events differ between 1 and 3 workers");
}

/// `--events` to a place that cannot be written is an error before anything runs.
#[test]
fn an_unwritable_events_file_is_an_error() {
    let pcap = demo("events-unwritable.pcap");
    let out = bin()
        .args(["classify", "-q", "-o", "/dev/null", "--events"])
        .arg(temp("no-such-dir").join("x").join("events.json"))
        .arg(&pcap)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("--events"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
