//! Real interfaces: a veth pair between two network namespaces made by the test itself. Corpus
//! captures are replayed into one end with `wirespeed replay` and captured at the other with
//! `wirespeed live` (2 workers, kernel fanout); the flows, their counts and labels must be those
//! `wirespeed classify` finds in the same files. Nothing leaves the two namespaces: the veth ends
//! have no addresses, IPv6 is off in both namespaces, and the pair is deleted at the end.
//!
//! Needs root (CAP_NET_ADMIN, CAP_NET_RAW) and iproute2; skipped, loudly, without them.

use crate::common::netns::{ip, stop_live, Veth};
use std::collections::BTreeSet;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// How long a test waits for an event (a line, a file, an exit) before it fails: a failsafe
/// against a hang, never a measure of speed; a loaded machine is slower, but not this slow.
const FAILSAFE: Duration = Duration::from_secs(120);

/// Wait for the line of `lines` that `hit` accepts (the lines before it are skipped).
fn wait_line(lines: &mpsc::Receiver<String>, what: &str, hit: impl Fn(&str) -> bool) -> String {
    let t = Instant::now();
    loop {
        match lines.recv_timeout(FAILSAFE.saturating_sub(t.elapsed())) {
            Ok(l) if hit(&l) => return l,
            Ok(_) => {}
            Err(e) => panic!("no {what} from wirespeed live within {FAILSAFE:?} ({e:?})"),
        }
    }
}

/// Wait until `done` says yes, looking every 20 ms; `what` names it in the failure.
fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let t = Instant::now();
    while !done() {
        assert!(t.elapsed() < FAILSAFE, "not within {FAILSAFE:?}: {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Wait until the veth end `dev` in namespace `ns` is up with its carrier (its queue takes
/// frames again).
fn wait_link_up(ns: &str, dev: &str) {
    wait_until(&format!("{dev} up"), || {
        Command::new("ip")
            .args(["-n", ns, "-o", "link", "show", "dev", dev])
            .output()
            .is_ok_and(|o| {
                let t = String::from_utf8_lossy(&o.stdout);
                t.contains("LOWER_UP") && t.contains("state UP")
            })
    });
}

/// The packets a `live: S s, N packets (...)` status line counts.
fn status_packets(l: &str) -> Option<u64> {
    let (_, rest) = l.strip_prefix("live: ")?.split_once(" s, ")?;
    let (n, rest) = rest.split_once(' ')?;
    if rest.starts_with("packets ") {
        n.parse().ok()
    } else {
        None
    }
}

/// The frames a `replay: N frames, ...` line says were sent.
fn replayed_frames(stderr: &str) -> u64 {
    stderr
        .lines()
        .find_map(|l| l.strip_prefix("replay: ")?.split(' ').next()?.parse().ok())
        .unwrap_or_else(|| panic!("no replay: line in {stderr}"))
}

/// The complete lines (ending in a newline) of a file another process may be writing.
fn whole_lines(path: &Path) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let end = text.rfind('\n').map_or(0, |i| i + 1);
    text[..end]
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_wirespeed")
}

/// The fields that must match: end-points, transport, counts per direction, labels.
fn flows(json: &str) -> BTreeSet<String> {
    json.lines()
        .map(|l| {
            let r: serde_json::Value = serde_json::from_str(l).unwrap();
            [
                "src_ip",
                "src_port",
                "dst_ip",
                "dst_port",
                "l4",
                "c2s_pkts",
                "c2s_bytes",
                "s2c_pkts",
                "s2c_bytes",
                "app",
                "master",
                "method",
            ]
            .iter()
            .map(|k| r[k].to_string())
            .collect::<Vec<_>>()
            .join(" ")
        })
        .collect()
}

/// What must match of transaction events (`--events`, docs/EVENTS.md) live and offline: their
/// type and transaction (times and flow ids are the run's own).
fn events(path: &Path) -> BTreeSet<String> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| {
            let mut e: serde_json::Value = serde_json::from_str(l).unwrap();
            let o = e.as_object_mut().unwrap();
            for k in ["ts", "flow_id", "rtt_us"] {
                o.remove(k);
            }
            e.to_string()
        })
        .collect()
}

/// A thread collecting `child`'s standard error: every line sent on the channel as it comes,
/// and the whole text when the child ends.
fn collect_stderr(
    child: &mut std::process::Child,
) -> (std::thread::JoinHandle<String>, mpsc::Receiver<String>) {
    let (tx, rx) = mpsc::channel();
    let err = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut all = String::new();
        for l in BufReader::new(err).lines().map_while(Result::ok) {
            all.push_str(&l);
            all.push('\n');
            let _ = tx.send(l);
        }
        all
    });
    (reader, rx)
}

/// Start `wirespeed live` with 2 workers on the capture end, these extra arguments (no status
/// line unless they ask for one) and `-o out`, and wait until it says its sockets are open; the
/// process, the thread collecting its standard error, and its lines as they come.
fn start_live(
    v: &Veth,
    extra: &[&str],
    out: &Path,
) -> (
    std::process::Child,
    std::thread::JoinHandle<String>,
    mpsc::Receiver<String>,
) {
    let status: &[&str] = if extra.contains(&"--status") {
        &[]
    } else {
        &["--status", "0"]
    };
    let mut live = Command::new("ip")
        .args(["netns", "exec", &v.ns[1], bin(), "live", "-i", &v.dev[1]])
        .args(["--workers", "2"])
        .args(status)
        .args(extra)
        .arg("-o")
        .arg(out)
        .stderr(Stdio::piped())
        .spawn()
        .expect("start wirespeed live");
    let (reader, lines) = collect_stderr(&mut live);
    wait_line(&lines, "live: ready", |l| l.starts_with("live: ready"));
    (live, reader, lines)
}

/// Capture on `dev` in namespace `ns` while `file` is replayed from the other end; the records.
fn live_capture(v: &Veth, file: &Path, out: &Path, extra: &[&str]) -> String {
    // The run is stopped by SIGTERM below; its own end is a failsafe.
    let args = [&["--duration", "600"][..], extra].concat();
    let (live, reader, _lines) = start_live(v, &args, out);
    if let Some(i) = extra.iter().position(|a| *a == "--user") {
        // The sockets are open and the process runs as that user now.
        let status = std::fs::read_to_string(format!("/proc/{}/status", live.id())).unwrap();
        let uid = status.lines().find(|l| l.starts_with("Uid:")).unwrap();
        let want = Command::new("id")
            .args(["-u", extra[i + 1]])
            .output()
            .unwrap();
        let want = String::from_utf8_lossy(&want.stdout).trim().to_string();
        assert!(
            uid.split_whitespace().skip(1).all(|u| u == want),
            "{uid}, want {want}"
        );
    }
    let r = Command::new("ip")
        .args(["netns", "exec", &v.ns[0], bin(), "replay", "-i", &v.dev[0]])
        .args(["--pps", "20000"])
        .arg(file)
        .output()
        .unwrap();
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    // SIGTERM at once: the packets the kernel accepted must still be processed (some sit in a
    // ring block not handed over yet), and every open flow written before exit.
    let log = stop_live(live, reader);
    eprintln!("{}{log}", String::from_utf8_lossy(&r.stderr));
    assert!(log.contains(" 0 dropped with the ring full"), "{log}");
    std::fs::read_to_string(out).unwrap()
}

#[test]
fn replayed_captures_give_the_offline_flows_and_labels() {
    if !cfg!(target_os = "linux") {
        wirespeed_testkit::skip("replayed_captures", "live capture is Linux only");
        return;
    }
    let Some(corpus) = wirespeed_testkit::corpus("replayed_captures") else {
        return;
    };
    let corpus = corpus.pcap_dir();
    let v = match Veth::new("wsv", "", None) {
        Ok(v) => v,
        Err(e) => {
            wirespeed_testkit::skip("replayed_captures", &e);
            return;
        }
    };
    // Ethernet captures with no VLAN tags (the kernel strips them before capture), no frames
    // beyond the 1500-byte MTU, no fragments or damage, and spanning less than the 10 s a closed
    // TCP flow lingers (the replay compresses time).
    let files = [
        "chrome.pcap",
        "dns_ambiguous_names.pcap",
        "amqp.pcap",
        "ethernetIP.pcap",
        "WebattackRCE.pcap",
    ];
    let has_nobody = Command::new("id")
        .arg("nobody")
        .output()
        .is_ok_and(|o| o.status.success());
    let dir = std::env::temp_dir().join(format!("wirespeed-veth-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for name in files {
        let file: PathBuf = corpus.join(name);
        let (ev_off, ev_live) = (
            dir.join(format!("{name}.off.events")),
            dir.join(format!("{name}.events")),
        );
        let off = Command::new(bin())
            .args(["classify", "-q", "--events"])
            .arg(&ev_off)
            .arg(&file)
            .output()
            .unwrap();
        assert!(off.status.success());
        let want = flows(&String::from_utf8_lossy(&off.stdout));
        // Privileges are dropped once the sockets are open, where the user exists (the events
        // file is opened before).
        let ev_arg = ev_live.to_string_lossy().to_string();
        let mut extra = vec!["--events", ev_arg.as_str()];
        if has_nobody {
            extra.extend(["--user", "nobody"]);
        }
        let live_json = live_capture(&v, &file, &dir.join(format!("{name}.json")), &extra);
        // The same columns as `classify`'s, in the same order; `source` names the interface.
        let keys = |l: &str| -> Vec<String> {
            let r: serde_json::Value = serde_json::from_str(l).unwrap();
            r.as_object().unwrap().keys().cloned().collect()
        };
        let (first_off, first_live) = (
            String::from_utf8_lossy(&off.stdout)
                .lines()
                .next()
                .unwrap()
                .to_string(),
            live_json.lines().next().unwrap().to_string(),
        );
        assert_eq!(keys(&first_live), keys(&first_off), "{name}: columns");
        let r: serde_json::Value = serde_json::from_str(&first_live).unwrap();
        assert_eq!(r["source"], v.dev[1].as_str(), "{first_live}");
        assert!(r["pcap"].is_null(), "{first_live}");
        let got = flows(&live_json);
        let missing: Vec<_> = want.difference(&got).collect();
        let extra: Vec<_> = got.difference(&want).collect();
        assert!(
            missing.is_empty() && extra.is_empty(),
            "{name}: offline only {missing:#?}\nlive only {extra:#?}"
        );
        eprintln!("{name}: {} flows, the same live and offline", want.len());
        // The transaction events too, each joined to a live record.
        let (ev_want, ev_got) = (events(&ev_off), events(&ev_live));
        assert_eq!(
            ev_got.difference(&ev_want).collect::<Vec<_>>(),
            ev_want.difference(&ev_got).collect::<Vec<_>>(),
            "{name}: transaction events live (left) and offline (right)"
        );
        let ids: BTreeSet<u64> = live_json
            .lines()
            .map(|l| {
                serde_json::from_str::<serde_json::Value>(l).unwrap()["flow_id"]
                    .as_u64()
                    .unwrap()
            })
            .collect();
        for l in std::fs::read_to_string(&ev_live).unwrap().lines() {
            let e: serde_json::Value = serde_json::from_str(l).unwrap();
            assert!(ids.contains(&e["flow_id"].as_u64().unwrap()), "{name}: {l}");
        }
        eprintln!(
            "{name}: {} transaction events, the same live and offline",
            ev_want.len()
        );
    }
    // A kernel filter in tcpdump syntax: of the DNS capture and a TLS one replayed together,
    // only the DNS flows (UDP port 53) are seen.
    let has_tcpdump = Command::new("tcpdump")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_tcpdump {
        wirespeed_testkit::skip(
            "replayed_captures --filter",
            "tcpdump, which compiles filters, is not installed",
        );
        return;
    }
    let mixed = dir.join("mixed.pcap");
    let mut bytes = std::fs::read(corpus.join("dns_ambiguous_names.pcap")).unwrap();
    // Same link type and format: the second file's records follow the first's header.
    bytes.extend_from_slice(&std::fs::read(corpus.join("chrome.pcap")).unwrap()[24..]);
    std::fs::write(&mixed, bytes).unwrap();
    let off = Command::new(bin())
        .args(["classify", "-q"])
        .arg(corpus.join("dns_ambiguous_names.pcap"))
        .output()
        .unwrap();
    let want = flows(&String::from_utf8(off.stdout).unwrap());
    let got = flows(&live_capture(
        &v,
        &mixed,
        &dir.join("filtered.json"),
        &["--filter", "udp port 53"],
    ));
    assert_eq!(got, want);
    eprintln!("--filter 'udp port 53': only the {} DNS flows", want.len());
    stalled_output_is_no_hang(&v, &corpus.join("WebattackRCE.pcap"));
    replay_keeps_its_pace(&v, &corpus.join("chrome.pcap"));
    kill_9_keeps_the_interims(&v, &corpus.join("chrome.pcap"), &dir.join("killed.json"));
    // Last: it deletes the capture end of the pair.
    link_down_then_gone(&v, &corpus.join("chrome.pcap"), &dir.join("gone.json"));
}

/// CPU seconds process `pid` has used so far.
fn cpu_s(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // Fields after the command name (which may hold spaces): utime and stime are 14 and 15.
    let rest = stat.rsplit_once(')').map_or("", |r| r.1);
    let f: Vec<u64> = rest
        .split_whitespace()
        .filter_map(|x| x.parse().ok())
        .collect();
    (f.get(10).copied().unwrap_or(0) + f.get(11).copied().unwrap_or(0)) as f64 / 100.0
}

/// A link that goes down is reported and waited out without spinning, and capture goes on when
/// it comes back; an interface that is deleted ends the run with a clear error, a non-zero exit,
/// and every flow seen so far written.
fn link_down_then_gone(v: &Veth, file: &Path, out: &Path) {
    // A status line every 0.2 s says how many packets the workers have taken.
    let (mut live, reader, lines) = start_live(v, &["--status", "0.2"], out);
    assert!(ip(&["-n", &v.ns[1], "link", "set", &v.dev[1], "down"]));
    wait_line(&lines, "link down", |l| l.contains("link down"));
    // CPU against the wall time of the same window: however long the window, a process that
    // waits uses next to none of it, and one that spins (both cores whole: 2 s a second) most.
    let (before, t) = (cpu_s(live.id()), Instant::now());
    std::thread::sleep(Duration::from_secs(1));
    let (spent, wall) = (cpu_s(live.id()) - before, t.elapsed().as_secs_f64());
    assert!(
        spent < 0.3 * wall,
        "{spent} s of CPU in {wall:.2} s with the link down"
    );
    assert!(ip(&["-n", &v.ns[1], "link", "set", &v.dev[1], "up"]));
    // Both ends up with their carrier: the frames replayed now go through.
    wait_link_up(&v.ns[1], &v.dev[1]);
    wait_link_up(&v.ns[0], &v.dev[0]);
    let r = Command::new("ip")
        .args(["netns", "exec", &v.ns[0], bin(), "replay", "-i", &v.dev[0]])
        .arg(file)
        .output()
        .unwrap();
    assert!(r.status.success());
    // Every frame taken by a worker before the interface goes.
    let frames = replayed_frames(&String::from_utf8_lossy(&r.stderr));
    wait_line(&lines, &format!("a status line of {frames} packets"), |l| {
        status_packets(l).is_some_and(|n| n >= frames)
    });
    let st = delete_and_wait(v, &mut live, "");
    let err = reader.join().unwrap();
    assert_eq!(st.code(), Some(2), "{err}");
    for want in ["link down", "link up again", "the interface is gone"] {
        assert!(err.contains(want), "{want}: {err}");
    }
    let off = Command::new(bin())
        .args(["classify", "-q"])
        .arg(file)
        .output()
        .unwrap();
    let want = flows(&String::from_utf8(off.stdout).unwrap());
    let got = flows(&std::fs::read_to_string(out).unwrap());
    assert_eq!(got, want, "the flows seen before the interface went");
    eprintln!(
        "link down: {:.2} s of CPU a second; interface gone: exit 2, flows written",
        spent / wall
    );
}

/// The replayer's pacing, against the capture's own span (1.5035 s by capinfos) and the rates
/// asked for: never faster than asked, which no load can change (a busy machine only makes it
/// slower; how close it comes is printed, and judged exactly on a test clock by the unit tests
/// of crates/live/src/replay.rs).
fn replay_keeps_its_pace(v: &Veth, file: &Path) {
    let run = |pace: &[&str]| -> (f64, f64, f64) {
        let r = Command::new("ip")
            .args(["netns", "exec", &v.ns[0], bin(), "replay", "-i", &v.dev[0]])
            .args(pace)
            .arg(file)
            .output()
            .unwrap();
        let e = String::from_utf8_lossy(&r.stderr).into_owned();
        assert!(r.status.success(), "{e}");
        // "replay: N frames, B bytes in T s: P pps, M Mbit/s; ..."
        let num = |after: &str| -> f64 {
            let rest = &e[e.find(after).unwrap_or_else(|| panic!("{e}")) + after.len()..];
            rest.split_whitespace().next().unwrap().parse().unwrap()
        };
        (num("bytes in "), num("s: "), num("pps, "))
    };
    // Printed to the millisecond, the packet rate to the unit, the bit rate to 0.1.
    let (secs, _, _) = run(&["--timing", "original"]);
    assert!(secs >= 1.503, "original timing took {secs} s");
    let (_, pps, _) = run(&["--pps", "1000"]);
    assert!(pps <= 1000.0, "{pps} pps for 1000");
    let (_, _, mbps) = run(&["--mbps", "2"]);
    assert!(mbps <= 2.0, "{mbps} Mbit/s for 2");
    eprintln!(
        "replay: original timing {secs:.2} s (the capture: 1.50 s), {pps:.0} pps for 1000, \
         {mbps:.1} Mbit/s for 2"
    );
}

/// `kill -9` during a run with `--active-timeout 0.5`: the flows still open were already
/// reported by interim records, and those were on disk (a worker hands its records to the
/// output at least once a second): every flow `classify` sees that FIN or RST never closed is in
/// the file, as an `active` record with its counters so far; no final record (none ended).
fn kill_9_keeps_the_interims(v: &Veth, file: &Path, out: &Path) {
    let off = Command::new(bin())
        .args(["classify", "-q"])
        .arg(file)
        .output()
        .unwrap();
    assert!(off.status.success());
    let tuple = |r: &serde_json::Value| {
        ["src_ip", "src_port", "dst_ip", "dst_port", "l4"]
            .iter()
            .map(|k| r[k].to_string())
            .collect::<Vec<_>>()
            .join(" ")
    };
    let open: BTreeSet<String> = String::from_utf8_lossy(&off.stdout)
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|r| r["end_reason"] == "end" || r["end_reason"] == "idle")
        .map(|r| tuple(&r))
        .collect();
    assert!(!open.is_empty());
    // No flow ends before the kill, however slow the machine: only the active timeout writes.
    let (mut live, reader, _lines) = start_live(
        v,
        &[
            "--active-timeout",
            "0.5",
            "--tcp-timeout",
            "inf",
            "--udp-timeout",
            "inf",
            "--other-timeout",
            "inf",
            "--closed-timeout",
            "3600",
        ],
        out,
    );
    let r = Command::new("ip")
        .args(["netns", "exec", &v.ns[0], bin(), "replay", "-i", &v.dev[0]])
        .args(["--timing", "original"])
        .arg(file)
        .output()
        .unwrap();
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    // The sweep runs on a quiet link every second and the interims reach the file within
    // another: wait for them there, with the run going on, then kill it.
    wait_until("an interim record of every open flow in the file", || {
        let got: BTreeSet<String> = whole_lines(out).iter().map(tuple).collect();
        open.is_subset(&got)
    });
    live.kill().unwrap();
    let _ = live.wait();
    let _ = reader.join();
    // What kill -9 left: whole records (a write it cut short leaves a partial last line).
    let recs = whole_lines(out);
    assert!(
        recs.iter().all(|r| r["end_reason"] == "active"),
        "only interims before the kill"
    );
    let got: BTreeSet<String> = recs.iter().map(tuple).collect();
    let missing: Vec<_> = open.difference(&got).collect();
    assert!(missing.is_empty(), "lost with kill -9: {missing:#?}");
    eprintln!(
        "kill -9: {} open flows kept by {} interim records",
        open.len(),
        recs.len()
    );
}

/// Records to a pipe nobody reads: capture goes on, the run ends on time and says what was lost.
fn stalled_output_is_no_hang(v: &Veth, file: &Path) {
    // Stopped by SIGTERM once every frame is out; its own end (--duration) is a failsafe.
    let mut live = Command::new("ip")
        .args(["netns", "exec", &v.ns[1], bin(), "live", "-i", &v.dev[1]])
        .args(["--workers", "2", "--status", "0", "--duration", "600"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (reader, lines) = collect_stderr(&mut live);
    wait_line(&lines, "live: ready", |l| l.starts_with("live: ready"));
    let r = Command::new("ip")
        .args(["netns", "exec", &v.ns[0], bin(), "replay", "-i", &v.dev[0]])
        .arg(file)
        .output()
        .unwrap();
    assert!(r.status.success());
    assert!(Command::new("kill")
        .args(["-TERM", &live.id().to_string()])
        .status()
        .unwrap()
        .success());
    let t = Instant::now();
    while live.try_wait().unwrap().is_none() {
        assert!(
            t.elapsed() < FAILSAFE,
            "wirespeed live hangs on a stalled output"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let err = reader.join().unwrap();
    assert!(
        err.contains("output is stalled") || !err.contains("output: 0 records"),
        "{err}"
    );
    assert!(
        err.contains("kernel: 797 packets passed the filter, 0 dropped"),
        "{err}"
    );
    eprintln!("stalled output: capture went on, the run ended when asked");
}

/// The lines of `lines` up to the first that `hit` accepts, that one included.
fn lines_until(
    lines: &mpsc::Receiver<String>,
    what: &str,
    hit: impl Fn(&str) -> bool,
) -> Vec<String> {
    let t = Instant::now();
    let mut seen = Vec::new();
    loop {
        match lines.recv_timeout(FAILSAFE.saturating_sub(t.elapsed())) {
            Ok(l) => {
                let done = hit(&l);
                seen.push(l);
                if done {
                    return seen;
                }
            }
            Err(e) => {
                panic!("no {what} from wirespeed live within {FAILSAFE:?} ({e:?}): {seen:#?}")
            }
        }
    }
}

/// Delete the capture end of `v` and wait for `live` to end; its exit status. A live that
/// outlives [`FAILSAFE`] is killed (left running, it would hold the test's output open) and
/// the test fails, `context` added to the message.
fn delete_and_wait(
    v: &Veth,
    live: &mut std::process::Child,
    context: &str,
) -> std::process::ExitStatus {
    assert!(ip(&["-n", &v.ns[1], "link", "del", &v.dev[1]]));
    let t = Instant::now();
    loop {
        if let Some(st) = live.try_wait().unwrap() {
            return st;
        }
        if t.elapsed() >= FAILSAFE {
            let _ = live.kill();
            let _ = live.wait();
            panic!("live runs on without its interface{context}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A veth pair in two new namespaces for `test` (names from `prefix` and `tag`) and an empty
/// scratch directory named after `name`; None, the test skipped and saying why, where live
/// capture or the namespaces cannot be had.
fn veth_for(test: &str, prefix: &str, tag: &str, name: &str) -> Option<(Veth, PathBuf)> {
    if !cfg!(target_os = "linux") {
        wirespeed_testkit::skip(test, "live capture is Linux only");
        return None;
    }
    let v = match Veth::new(prefix, tag, None) {
        Ok(v) => v,
        Err(e) => {
            wirespeed_testkit::skip(test, &e);
            return None;
        }
    };
    let dir = std::env::temp_dir().join(format!("wirespeed-veth-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    Some((v, dir))
}

/// Issue 33: `live` said "link up again" right after "link down" while the link was still down
/// (a ring block filled before the link went down is handed over after it), and nothing when it
/// came back. The link's state is the interface's now: taken down under traffic, it is said
/// down once and nothing more while it stays down; up again only once it is up; and a lost
/// carrier (the peer taken down, which no socket error tells) is a link down too.
#[test]
fn link_down_and_up_are_said_when_they_happen() {
    let Some((v, dir)) = veth_for("link_down_and_up", "wsv", "L", "link") else {
        return;
    };
    let demo = dir.join("demo.pcap");
    assert!(Command::new(bin())
        .args(["gen", "demo", "-o"])
        .arg(&demo)
        .status()
        .unwrap()
        .success());
    let (live, reader, lines) = start_live(
        &v,
        &["--status", "0.1", "--duration", "600"],
        &dir.join("link.json"),
    );
    // Frames all the time, so the ring block being filled holds some when the link goes.
    let mut replay = Command::new("ip")
        .args(["netns", "exec", &v.ns[0], bin(), "replay", "-i", &v.dev[0]])
        .args(["--pps", "5000", "--loop", "0"])
        .arg(&demo)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut seen = lines_until(&lines, "packets", |l| {
        status_packets(l).is_some_and(|n| n > 0)
    });
    assert!(ip(&["-n", &v.ns[1], "link", "set", &v.dev[1], "down"]));
    seen.extend(lines_until(&lines, "link down", |l| {
        l.contains("link down")
    }));
    // Status lines come after every tick's link report: five ticks with the link down.
    for _ in 0..5 {
        seen.extend(lines_until(&lines, "a status line", |l| {
            status_packets(l).is_some()
        }));
    }
    let _ = replay.kill();
    let _ = replay.wait();
    assert!(
        !seen.iter().any(|l| l.contains("link up again")),
        "said up while down: {seen:#?}"
    );
    assert!(ip(&["-n", &v.ns[1], "link", "set", &v.dev[1], "up"]));
    seen.extend(lines_until(&lines, "link up again", |l| {
        l.contains("link up again")
    }));
    // The peer down: the capture end is up but has no carrier.
    wait_link_up(&v.ns[1], &v.dev[1]);
    assert!(ip(&["-n", &v.ns[0], "link", "set", &v.dev[0], "down"]));
    seen.extend(lines_until(&lines, "link down (carrier)", |l| {
        l.contains("link down")
    }));
    assert!(ip(&["-n", &v.ns[0], "link", "set", &v.dev[0], "up"]));
    seen.extend(lines_until(&lines, "link up again (carrier)", |l| {
        l.contains("link up again")
    }));
    let log = stop_live(live, reader);
    let said: Vec<&str> = log
        .lines()
        .filter_map(|l| {
            if l.contains("link down") {
                Some("down")
            } else if l.contains("link up again") {
                Some("up")
            } else {
                None
            }
        })
        .collect();
    assert_eq!(said, ["down", "up", "down", "up"], "{log}");
    let _ = std::fs::remove_dir_all(&dir);
    eprintln!("link down, up, carrier lost, back: each said once, when it happened");
}

/// An interface deleted while its link is down ends the run, as one deleted while up does. The
/// kernel reports ENETDOWN to a capture socket when its link goes down and unhooks it; a later
/// deletion is then reported to no one (ENODEV goes only to sockets still hooked). A worker that
/// had taken the ENETDOWN while the interface still stood waited for ever: CI met it once under
/// load, when `ip link del` took the link down and the worker woke before the deletion ended.
/// Here the link is taken down first and the deletion comes after the down was reported.
#[test]
fn an_interface_deleted_while_its_link_is_down_ends_the_run() {
    let Some((v, dir)) = veth_for("deleted_while_down", "wsg", "G", "gone") else {
        return;
    };
    let (mut live, reader, lines) = start_live(&v, &["--status", "0.1"], &dir.join("gone.json"));
    assert!(ip(&["-n", &v.ns[1], "link", "set", &v.dev[1], "down"]));
    let mut seen = lines_until(&lines, "link down", |l| l.contains("link down"));
    // Ticks after the report: the workers took their sockets' ENETDOWN well before.
    for _ in 0..3 {
        seen.extend(lines_until(&lines, "a status line", |l| {
            status_packets(l).is_some()
        }));
    }
    let st = delete_and_wait(&v, &mut live, &format!(", deleted while down: {seen:#?}"));
    let err = reader.join().unwrap();
    assert_eq!(st.code(), Some(2), "{err}");
    assert!(err.contains("the interface is gone"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
    eprintln!("deleted while down: the run ended, saying the interface is gone");
}

/// `live --capture xdp` (issue 39 item 3): the XDP program in the veth driver redirects every
/// frame to an AF_XDP socket; the corpus captures replayed into the other end give the flows,
/// counts and labels `classify` finds in the files (as AF_PACKET's do, above), every frame
/// seen by the program and none dropped by the sockets. Needs the `ebpf` feature and root;
/// run by `scripts/ebpf/test.sh`.
#[cfg(feature = "ebpf")]
#[test]
#[ignore = "needs root and the `ebpf` feature: scripts/ebpf/test.sh runs it"]
fn xdp_capture_gives_the_offline_flows_and_labels() {
    if !crate::common::netns::can_run("live --capture xdp", &["ip"]) {
        return;
    }
    let Some(corpus) = wirespeed_testkit::corpus("xdp_capture") else {
        return;
    };
    let corpus = corpus.pcap_dir();
    let v = Veth::new("wsx", "", None).unwrap();
    let dir = std::env::temp_dir().join(format!("wirespeed-xdp-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for name in ["chrome.pcap", "dns_ambiguous_names.pcap", "amqp.pcap"] {
        let file: PathBuf = corpus.join(name);
        let off = Command::new(bin())
            .args(["classify", "-q"])
            .arg(&file)
            .output()
            .unwrap();
        assert!(off.status.success());
        let want = flows(&String::from_utf8_lossy(&off.stdout));
        let out = dir.join(format!("{name}.json"));
        let (live, reader, lines) = start_live(
            &v,
            &["--capture", "xdp", "--duration", "600", "--status", "0.1"],
            &out,
        );
        let r = Command::new("ip")
            .args(["netns", "exec", &v.ns[0], bin(), "replay", "-i", &v.dev[0]])
            .args(["--pps", "20000"])
            .arg(&file)
            .output()
            .unwrap();
        assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
        let frames = replayed_frames(&String::from_utf8_lossy(&r.stderr));
        // Every frame read before the stop (the status line counts them).
        wait_line(&lines, "every replayed frame read", |l| {
            status_packets(l).is_some_and(|n| n >= frames)
        });
        let log = stop_live(live, reader);
        assert!(
            log.contains(&format!(
                "live: xdp: program on {} (in the driver)",
                v.dev[1]
            )),
            "{log}"
        );
        assert!(
            log.contains(&format!(
                "kernel: {frames} frames seen by the XDP program, 0 dropped by its sockets"
            )),
            "{frames} frames replayed: {log}"
        );
        let live_json = std::fs::read_to_string(&out).unwrap();
        let got = flows(&live_json);
        let missing: Vec<_> = want.difference(&got).collect();
        let extra: Vec<_> = got.difference(&want).collect();
        assert!(
            missing.is_empty() && extra.is_empty(),
            "{name}: offline only {missing:#?}\nlive only {extra:#?}"
        );
        eprintln!(
            "{name}: {} flows, {frames} frames, the same through XDP sockets and offline",
            want.len()
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
