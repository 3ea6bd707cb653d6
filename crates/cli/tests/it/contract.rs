//! The output contract scripts rely on: a missing input is a usage error in one line (exit 2),
//! an empty file is called empty, an empty classifier list is refused, and a reader that closes
//! the pipe early (`| head -1`) ends the run quietly with success.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use crate::common::{bin, demo, ok, temp};

fn run(cmd: &mut Command) -> (i32, String) {
    let out = cmd.output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_missing_input_is_a_usage_error_in_one_line() {
    let pcap = demo("contract-demo.pcap");
    let missing = temp("no-such-capture.pcap");
    let (code, err) = run(bin().arg("classify").arg(&pcap).arg(&missing));
    assert_eq!(code, 2, "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("cannot read") && err.contains("no-such-capture.pcap"),
        "{err}"
    );
}

#[test]
fn an_empty_file_is_called_empty() {
    let empty = temp("empty.pcap");
    std::fs::write(&empty, b"").unwrap();
    let (code, err) = run(bin().arg("classify").arg(&empty).arg("-q"));
    // Nothing in it is a capture: bad input (2), not a damaged capture (1).
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("empty.pcap: the file is empty"), "{err}");
}

#[test]
fn an_empty_classifier_list_is_refused() {
    let pcap = demo("contract-classifiers.pcap");
    let (code, err) = run(bin().arg("classify").arg(&pcap).args(["--classifiers", ""]));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("no classifier named"), "{err}");
}

#[test]
fn a_reader_that_closes_the_pipe_ends_the_run_quietly() {
    let wc = temp("contract-worst.pcap");
    ok(bin()
        .args(["gen", "worst-case", "--flows", "50000", "-o"])
        .arg(&wc));
    for workers in ["1", "2"] {
        let mut child = bin()
            .arg("classify")
            .arg(&wc)
            .args(["--workers", workers])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut first = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut first)
            .unwrap();
        assert!(first.starts_with('{'), "{first}");
        // The reader goes away, as `head -1` does.
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{workers} workers: {err}");
        assert!(
            !err.contains("Broken pipe") && !err.contains("error"),
            "{err}"
        );
    }
}

/// Without the right to capture, `live` says what it needs and leaves no output file behind
/// (the file is created only once the sockets are open). Run as `nobody` by `setpriv`, as root.
#[test]
fn live_without_capture_rights_says_so_and_creates_no_file() {
    let is_root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0");
    let setpriv = Command::new("setpriv").arg("--version").output().is_ok();
    if !is_root || !setpriv {
        wirespeed_testkit::skip(
            "live_without_capture_rights_says_so_and_creates_no_file",
            "needs root and setpriv to run as nobody",
        );
        return;
    }
    let dir = std::env::temp_dir().join(format!("wirespeed-nobody-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // nobody may write here: the file's absence is then live's doing, not the directory's.
    Command::new("chmod").arg("777").arg(&dir).status().unwrap();
    let out_file = dir.join("live.json");
    let out = Command::new("setpriv")
        .args(["--reuid=nobody", "--regid=nogroup", "--clear-groups", "--"])
        .arg(env!("CARGO_BIN_EXE_wirespeed"))
        .args(["live", "-i", "lo", "--duration", "1", "-o"])
        .arg(&out_file)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("CAP_NET_RAW"), "{err}");
    assert!(!out_file.exists(), "an output file was left behind");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The columns depend on options only: one input or several, CSV has the same header, and
/// every record names its input (`source`, `pcap`) in CSV and JSON alike.
#[test]
fn the_columns_do_not_depend_on_the_number_of_inputs() {
    let a = demo("contract-cols-a.pcap");
    let b = demo("contract-cols-b.pcap");
    let header = |files: &[&std::path::Path]| {
        let out = bin()
            .args(["classify", "-q", "--format", "csv"])
            .args(files)
            .output()
            .unwrap();
        assert!(out.status.success());
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .next()
            .unwrap()
            .to_string()
    };
    let one = header(&[&a]);
    assert_eq!(one, header(&[&a, &b]));
    assert!(one.starts_with("source,pcap,"), "{one}");
    let out = bin().args(["classify", "-q"]).arg(&a).output().unwrap();
    let first: serde_json::Value = serde_json::from_str(
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(first["pcap"], "contract-cols-a.pcap");
    assert!(first["source"]
        .as_str()
        .unwrap()
        .ends_with("contract-cols-a.pcap"));
}

/// `--active-timeout 10` on a capture of long flows (1kxun.pcap spans about a minute): the
/// final records are exactly those of a run without it (interims change nothing); every interim
/// (`end_reason` `active`) names a flow that has a final record with the same `flow_id`,
/// 5-tuple and start, and counters that are cumulative (never more than the final's, never less
/// than an earlier interim's); a flow never closed by FIN or RST with a packet more than T after
/// its first has at least one interim (written at the first such packet: docs/SCHEMA.md), and
/// none has more than the whole timeouts that fit before the capture's last packet.
#[test]
fn active_timeout_writes_cumulative_interims_with_the_final_flow_id() {
    let Some(corpus) = wirespeed_testkit::corpus("active_timeout") else {
        return;
    };
    let pcap = corpus.pcap("1kxun.pcap");
    let lines = |extra: &[&str]| -> Vec<serde_json::Value> {
        let out = ok(bin()
            .args(["classify", "-q", "--workers", "1"])
            .args(extra)
            .arg(&pcap));
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    let plain = lines(&[]);
    let with = lines(&["--active-timeout", "10"]);
    let (interim, fin): (Vec<_>, Vec<_>) = with.iter().partition(|r| r["end_reason"] == "active");
    let text = |v: &[&serde_json::Value]| -> Vec<String> {
        let mut t: Vec<String> = v.iter().map(|r| r.to_string()).collect();
        t.sort();
        t
    };
    assert_eq!(text(&fin), text(&plain.iter().collect::<Vec<_>>()));
    assert!(!interim.is_empty());
    let by_id: std::collections::HashMap<u64, &serde_json::Value> = fin
        .iter()
        .map(|r| (r["flow_id"].as_u64().unwrap(), *r))
        .collect();
    assert_eq!(by_id.len(), fin.len(), "final flow ids are unique");
    let ns = |r: &serde_json::Value, k: &str| (r[k].as_f64().unwrap() * 1e6).round() as i64;
    let last = fin.iter().map(|r| ns(r, "last_ts")).max().unwrap();
    let mut seen: std::collections::HashMap<u64, (u64, i64)> = Default::default();
    for r in &interim {
        let id = r["flow_id"].as_u64().unwrap();
        let f = by_id
            .get(&id)
            .unwrap_or_else(|| panic!("no final record for {r}"));
        for k in ["src_ip", "src_port", "dst_ip", "dst_port", "l4", "first_ts"] {
            assert_eq!(r[k], f[k], "{k}: {r} / {f}");
        }
        let pkts = |x: &serde_json::Value| {
            x["c2s_pkts"].as_u64().unwrap() + x["s2c_pkts"].as_u64().unwrap()
        };
        assert!(
            pkts(r) <= pkts(f) && ns(r, "last_ts") <= ns(f, "last_ts"),
            "{r} / {f}"
        );
        let e = seen.entry(id).or_insert((0, 0));
        assert!(pkts(r) >= e.0, "an interim's counters are cumulative: {r}");
        *e = (pkts(r), e.1 + 1);
    }
    for f in &fin {
        let id = f["flow_id"].as_u64().unwrap();
        let open_us = last - ns(f, "first_ts");
        let n = seen.get(&id).map_or(0, |e| e.1);
        assert!(n <= open_us / 10_000_000, "{n} interims: {f}");
        let never_closed = f["end_reason"] == "idle" || f["end_reason"] == "end";
        // The first packet past T after the first is past the first timeout after the packet
        // before it (which is at most T in): an interim is written there (1 ms of margin).
        if never_closed && ns(f, "last_ts") - ns(f, "first_ts") > 10_001_000 {
            assert!(
                n >= 1,
                "a flow with packets over 10 s apart has no interim: {f}"
            );
        }
    }
}

/// `wirespeed list apps` prints every application with its category and the masters it is
/// named over, an operator's `--rules` names included; `list classifiers` names each
/// `--classifiers` value; the summary says how the flows were named, with each application's
/// category.
#[test]
fn list_apps_and_classifiers_and_the_summary_says_how_flows_were_named() {
    let rules = temp("list-rules.txt");
    std::fs::write(&rules, "host:\"corp.example\"@CorpApp\ntcp:4711@CorpPort\n").unwrap();
    let apps = ok(bin().args(["list", "apps", "--rules"]).arg(&rules));
    let text = String::from_utf8(apps.stdout).unwrap();
    assert_eq!(text.lines().next(), Some("app\tcategory\tmasters"));
    assert!(
        text.lines()
            .any(|l| l == "CorpApp\tUnspecified\tCorpApp,DNS,DTLS,HTTP,HTTP_Proxy,QUIC,TLS"),
        "{text}"
    );
    assert!(
        text.lines().any(|l| l == "CorpPort\tUnspecified\tCorpPort"),
        "{text}"
    );
    assert!(text.lines().any(|l| l.starts_with("YouTube\t")), "{text}");
    let without = String::from_utf8(ok(bin().args(["list", "apps"])).stdout).unwrap();
    assert!(!without.contains("CorpApp"));
    let cls = String::from_utf8(ok(bin().args(["list", "classifiers"])).stdout).unwrap();
    // Every classifier the build has is listed and accepted.
    for name in wirespeed_classify::AVAILABLE.iter().map(|a| a.0) {
        assert!(
            cls.lines().any(|l| l.starts_with(&format!("{name}\t"))),
            "{cls}"
        );
        // Each listed name is accepted by --classifiers.
        let pcap = demo("list-demo.pcap");
        ok(bin()
            .args(["classify", "-q", "-o", "/dev/null", "--classifiers", name])
            .arg(&pcap));
    }
    // Protocols: payload inspectors and the port table, with their usual ports (IANA: DNS on
    // 53, mDNS on 5353, BACnet/IP on UDP 47808).
    let protos = String::from_utf8(ok(bin().args(["list", "protocols"])).stdout).unwrap();
    let row = |name: &str| {
        protos
            .lines()
            .find(|l| l.split('\t').next() == Some(name))
            .unwrap_or_else(|| panic!("{name} not listed: {protos}"))
            .to_string()
    };
    assert!(row("DNS").contains("payload,port") && row("DNS").contains("udp/53"));
    assert!(!row("DNS").contains("udp/5353"), "{}", row("DNS"));
    assert!(row("MDNS").contains("udp/5353"), "{}", row("MDNS"));
    assert!(row("BACnet").contains("udp/47808"), "{}", row("BACnet"));
    // IANA's protocol numbers: ICMP 1, OSPF 89.
    assert!(row("ICMP").contains("ip-protocol") && row("ICMP").contains("ip/1"));
    assert!(row("OSPF").contains("ip/89"), "{}", row("OSPF"));
    assert!(protos.lines().count() > 200, "{protos}");
    let pcap = demo("list-demo.pcap");
    let out = ok(bin().args(["classify", "-o", "/dev/null"]).arg(&pcap));
    let err = String::from_utf8_lossy(&out.stderr);
    let line = err
        .lines()
        .find(|l| l.starts_with("flows named by: "))
        .unwrap_or_else(|| panic!("{err}"));
    // The demo's 9 flows: counts add up to them.
    let total: u64 = line["flows named by: ".len()..]
        .split(", ")
        .map(|p| p.rsplit(' ').next().unwrap().parse::<u64>().unwrap())
        .sum();
    assert_eq!(total, 9, "{line}");
    assert!(
        err.lines()
            .any(|l| l.trim_start().starts_with("DNS ") && l.contains("Network")),
        "{err}"
    );
}
