//! `wirespeed inline` on real traffic: a client, a router and a server in three network
//! namespaces the test makes (`scripts/inline/topo.sh`, documentation addresses only), the
//! router's FORWARD chain queueing to wirespeed with the rules `--print-rules` gives. What the
//! policy did is judged from the packets tcpdump sees on the server's (or client's) side, not
//! from wirespeed's own counters: a dropped application's request (HTTP) or ClientHello (TLS,
//! by its server name) never arrives, marked packets carry the DSCP, a rate limit is never
//! exceeded by iperf3's receiver, traffic goes on within a second of `kill -9`, and a stalled
//! process under a flood lets traffic through. Every wait is on an event (a line, a listening
//! socket, a marker packet in tcpdump's file), with `FAILSAFE` as its limit.
//!
//! Needs root, iproute2, iptables-legacy, tcpdump, iperf3, ping, python3 and openssl; skipped,
//! loudly, without them, and failed under `CI=true` (CI installs them).

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// How long the test waits for an event (a line, a listening socket, a packet in a file)
/// before it fails: a failsafe against a hang, never a measure of speed.
const FAILSAFE: Duration = Duration::from_secs(120);

/// Wait until `done` says yes, looking every 20 ms; `what` names it in the failure.
fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let t = Instant::now();
    while !done() {
        assert!(t.elapsed() < FAILSAFE, "not within {FAILSAFE:?}: {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The UDP port tcpdump's end-of-capture marker goes to ([`Tcpdump::read`]): discard, which no
/// test's traffic uses.
const SENTINEL_PORT: u16 = 9;

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_wirespeed")
}

fn topo_script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/inline/topo.sh")
}

/// Whether the test can run here (root and its tools); under CI it must.
fn can_run(test: &str) -> bool {
    crate::common::netns::can_run(
        test,
        &[
            "ip",
            "iptables-legacy",
            "tcpdump",
            "iperf3",
            "ping",
            "python3",
            "openssl",
        ],
    )
}

/// `--datapath ebpf` (issue 39), in the kernel: run by `scripts/ebpf/test.sh`.
#[cfg(feature = "ebpf")]
mod ebpf;

/// The three namespaces; removed (with every process in them) on drop.
struct Topo {
    name: String,
}

impl Topo {
    fn new(tag: &str) -> Topo {
        let name = format!("wi{tag}{}", std::process::id() % 10_000);
        let _ = Command::new(topo_script()).args(["down", &name]).status();
        let st = Command::new(topo_script())
            .args(["up", &name])
            .status()
            .unwrap();
        assert!(st.success(), "topology {name}");
        Topo { name }
    }
    fn ns(&self, which: char) -> String {
        format!("{}-{which}", self.name)
    }
    fn dev(&self, d: &str) -> String {
        format!("{}-{d}", self.name)
    }
    /// Run `args` in namespace `which`, waiting for it.
    fn run(&self, which: char, args: &[&str]) -> std::process::Output {
        Command::new("ip")
            .args(["netns", "exec", &self.ns(which)])
            .args(args)
            .output()
            .unwrap()
    }
    /// Wait until something in namespace `which` listens on `port` (`tcp`, or `udp`: bound).
    fn wait_listening(&self, which: char, proto: &str, port: u16) {
        let flags = if proto == "udp" { "-Hlun" } else { "-Hltn" };
        let sport = format!("sport = :{port}");
        wait_until(&format!("{proto} port {port} listening"), || {
            let o = self.run(which, &["ss", flags, &sport]);
            o.status.success() && !o.stdout.is_empty()
        });
    }
    /// Start `args` in namespace `which`; ended when the guard goes.
    fn spawn(&self, which: char, args: &[&str]) -> Bg {
        Bg(Command::new("ip")
            .args(["netns", "exec", &self.ns(which)])
            .args(args)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap())
    }
    /// Python's HTTP server on the server's 198.51.100.1:8080 (`extra` arguments after), once
    /// it listens.
    fn http_server(&self, extra: &[&str]) -> Bg {
        let mut args = vec![
            "python3",
            "-m",
            "http.server",
            "8080",
            "--bind",
            "198.51.100.1",
        ];
        args.extend_from_slice(extra);
        let bg = self.spawn('s', &args);
        self.wait_listening('s', "tcp", 8080);
        bg
    }

    /// Install the firewall rules of `--print-rules` for `policy` in the router.
    fn rules(&self, policy: &Path) {
        let o = Command::new(bin())
            .args(["inline", "--queue", "0", "--print-rules", "--policy"])
            .arg(policy)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        for line in String::from_utf8_lossy(&o.stdout).lines() {
            if line.starts_with('#') {
                continue;
            }
            let args: Vec<&str> = line.split_whitespace().collect();
            let o = self.run('r', &args);
            assert!(
                o.status.success(),
                "{line}: {}",
                String::from_utf8_lossy(&o.stderr)
            );
        }
    }
}

/// A background process (a server), killed and reaped on drop.
struct Bg(Child);

impl Drop for Bg {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl Drop for Topo {
    fn drop(&mut self) {
        let _ = Command::new(topo_script())
            .args(["down", &self.name])
            .status();
    }
}

/// `wirespeed inline` in the router, started and ready; its stderr collected by a thread.
struct Inline {
    child: Child,
    log: mpsc::Receiver<String>,
    lines: Vec<String>,
}

impl Inline {
    fn start(t: &Topo, policy: &Path, out: &Path, extra: &[&str]) -> Inline {
        Inline::start_on(t, "0", policy, out, extra)
    }

    /// On the queues `queue` (`N` or `A:B`).
    fn start_on(t: &Topo, queue: &str, policy: &Path, out: &Path, extra: &[&str]) -> Inline {
        let child = Command::new("ip")
            .args([
                "netns",
                "exec",
                &t.ns('r'),
                bin(),
                "inline",
                "--queue",
                queue,
            ])
            .args(["--status", "0", "--policy"])
            .arg(policy)
            .arg("-o")
            .arg(out)
            .args(extra)
            .stderr(Stdio::piped())
            .stdout(Stdio::null())
            .spawn()
            .unwrap();
        Inline::spawned(child, "inline: ready")
    }

    /// A started run, its status lines read on a thread of their own, once it says `ready`.
    fn spawned(mut child: Child, ready: &str) -> Inline {
        let (tx, rx) = mpsc::channel();
        let err = child.stderr.take().unwrap();
        std::thread::spawn(move || {
            for l in BufReader::new(err).lines().map_while(Result::ok) {
                if tx.send(l).is_err() {
                    break;
                }
            }
        });
        let mut me = Inline {
            child,
            log: rx,
            lines: Vec::new(),
        };
        me.wait_for(ready, FAILSAFE).unwrap();
        me
    }
    fn wait_for(&mut self, what: &str, limit: Duration) -> Result<(), String> {
        let t = Instant::now();
        while t.elapsed() < limit {
            if let Ok(l) = self.log.recv_timeout(Duration::from_millis(100)) {
                let hit = l.contains(what);
                self.lines.push(l);
                if hit {
                    return Ok(());
                }
            }
        }
        Err(format!("no {what:?} in {:#?}", self.lines))
    }
    fn signal(&self, sig: &str) {
        assert!(Command::new("kill")
            .args([sig, &self.child.id().to_string()])
            .status()
            .unwrap()
            .success());
    }
    /// SIGTERM, wait, and the whole standard error.
    fn stop(mut self) -> String {
        self.signal("-TERM");
        let st = self.child.wait().unwrap();
        // Every line, up to the end of its standard error (the process has ended).
        let t = Instant::now();
        loop {
            match self.log.recv_timeout(FAILSAFE.saturating_sub(t.elapsed())) {
                Ok(l) => self.lines.push(l),
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
                Err(e) => panic!("standard error not closed: {e:?}"),
            }
        }
        let log = self.lines.join("\n");
        assert!(st.success(), "{log}");
        log
    }
}

fn temp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("wirespeed-inline-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

/// tcpdump in namespace `which` on `dev` writing `file`, with `filter`; stopped by the guard.
/// Also keeps the end-of-capture marker: UDP to [`SENTINEL_PORT`] of the router.
struct Tcpdump {
    child: Child,
    ns: String,
    router: &'static str,
}

impl Tcpdump {
    fn start(t: &Topo, which: char, dev: &str, file: &Path, filter: &str) -> Tcpdump {
        let filter = format!("( {filter} ) or udp dst port {SENTINEL_PORT}");
        let log = file.with_extension("log");
        let c = Command::new("ip")
            .args([
                "netns",
                "exec",
                &t.ns(which),
                "tcpdump",
                "-U",
                "-n",
                "-i",
                dev,
                "-w",
            ])
            .arg(file)
            .args(filter.split_whitespace())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .unwrap();
        // Capturing once it says so (after its socket is bound and its filter set).
        wait_until("tcpdump listening", || {
            std::fs::read_to_string(&log).is_ok_and(|l| l.contains("listening on"))
        });
        Tcpdump {
            child: c,
            ns: t.ns(which),
            router: if which == 's' {
                "198.51.100.254"
            } else {
                "192.0.2.254"
            },
        }
    }
    /// Stop it and print what it captured (tcpdump's own reading: `-v` shows the TOS byte).
    /// First a marker datagram out of the same interface, after the test's traffic: once it is
    /// in the file (`-U` writes each packet as it comes), so is every packet before it, however
    /// late tcpdump got to them.
    fn read(mut self, file: &Path) -> Vec<String> {
        let send = format!(
            "import socket\nsocket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b'end', ('{}', {SENTINEL_PORT}))",
            self.router
        );
        let marker = format!("udp dst port {SENTINEL_PORT}");
        wait_until("tcpdump's end-of-capture marker in its file", || {
            // Sent again while not seen (the first waits for the router's address to resolve).
            let _ = Command::new("ip")
                .args(["netns", "exec", &self.ns, "python3", "-c", &send])
                .status();
            Command::new("tcpdump")
                .args(["-n", "-r"])
                .arg(file)
                .arg(&marker)
                .stderr(Stdio::null())
                .output()
                .is_ok_and(|o| !o.stdout.is_empty())
        });
        let _ = Command::new("kill")
            .args(["-INT", &self.child.id().to_string()])
            .status();
        let _ = self.child.wait();
        let o = Command::new("tcpdump")
            .args(["-n", "-v", "-r"])
            .arg(file)
            .output()
            .unwrap();
        String::from_utf8_lossy(&o.stdout)
            .lines()
            .map(str::to_string)
            .collect()
    }
}

impl Drop for Tcpdump {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An HTTP GET from the client with python's urllib (3 s timeout): the status, or None.
fn http_get(t: &Topo, url: &str) -> Option<u16> {
    http_get_as(t, url, None)
}

/// [`http_get`] with this `Host` header instead of the URL's.
fn http_get_as(t: &Topo, url: &str, host: Option<&str>) -> Option<u16> {
    let headers = host.map_or(String::new(), |h| format!("{{'Host': '{h}'}}"));
    let headers = if headers.is_empty() {
        "{}".to_string()
    } else {
        headers
    };
    let o = t.run(
        'c',
        &[
            "python3",
            "-c",
            &format!(
                "import urllib.request,sys\ntry:\n q = urllib.request.Request('{url}', headers={headers})\n r = urllib.request.urlopen(q, timeout=3)\n r.read()\n print(r.status)\nexcept Exception as e:\n print('ERR', e)"
            ),
        ],
    );
    String::from_utf8_lossy(&o.stdout).trim().parse().ok()
}

/// tcpdump's `-v` header lines of IPv4 packets from `src` to `dst` with a TCP/UDP payload.
fn packets<'a>(lines: &'a [String], src: &str, dst: &str) -> Vec<&'a String> {
    // `-v` prints "IP (tos 0x0, ttl ..., length N)" then, on the next line, "A.p > B.q: ...".
    let mut out = Vec::new();
    for w in lines.windows(2) {
        let (h, body) = (&w[0], w[1].trim_start());
        if h.contains(" IP (") && body.starts_with(src) && body.contains(&format!("> {dst}")) {
            out.push(h);
        }
    }
    out
}

fn tos(h: &str) -> Option<u8> {
    let i = h.find("tos 0x")? + 6;
    let end = h[i..].find(|c: char| !c.is_ascii_hexdigit())? + i;
    u8::from_str_radix(&h[i..end], 16).ok()
}

/// Packets the router's NFQUEUE rules took (their own counters), and packets wirespeed says it
/// received (its `queue: N packets` line): more taken than received were let past the process
/// by the kernel (fail-open, a full queue).
fn queued_and_seen(t: &Topo, log: &str) -> (u64, u64) {
    let seen: u64 = log
        .lines()
        .find_map(|l| l.strip_prefix("queue: ")?.split(' ').next()?.parse().ok())
        .unwrap_or_else(|| panic!("{log}"));
    (nfqueue_packets(t), seen)
}

/// Packets the router's first NFQUEUE rule took so far.
fn nfqueue_packets(t: &Topo) -> u64 {
    let rules = t.run('r', &["iptables-legacy", "-L", "FORWARD", "-v", "-x", "-n"]);
    let rules = String::from_utf8_lossy(&rules.stdout);
    rules
        .lines()
        .find(|l| l.contains("NFQUEUE"))
        .and_then(|l| l.split_whitespace().next()?.parse().ok())
        .unwrap_or_else(|| panic!("{rules}"))
}

fn length(h: &str) -> Option<usize> {
    let i = h.find("length ")? + 7;
    let end = h[i..].find(|c: char| !c.is_ascii_digit())? + i;
    h[i..end].parse().ok()
}

#[test]
fn a_dropped_application_never_reaches_the_server_and_reload_keeps_counters() {
    if !can_run("inline drop") {
        return;
    }
    let t = Topo::new("d");
    let policy = temp("drop.toml");
    std::fs::write(
        &policy,
        "[[rule]]\nname = \"web\"\napp = \"HTTP\"\naction = \"forward\"\n",
    )
    .unwrap();
    t.rules(&policy);
    let _srv = t.http_server(&[]);
    let out = temp("drop.json");
    // With the live page: its rules' counters follow the policy's.
    let mut w = Inline::start(&t, &policy, &out, &["--http", "127.0.0.1:0"]);
    let page = w
        .lines
        .iter()
        .find_map(|l| l.strip_prefix("live page: serving http://"))
        .map(|a| a.trim_end_matches('/').to_string())
        .unwrap_or_else(|| panic!("no live page in {:#?}", w.lines));
    assert_eq!(
        http_get(&t, "http://198.51.100.1:8080/"),
        Some(200),
        "forwarded first"
    );
    // The same rule name now drops: reloaded on SIGHUP.
    std::fs::write(
        &policy,
        "[[rule]]\nname = \"web\"\napp = \"HTTP\"\naction = \"drop\"\n",
    )
    .unwrap();
    w.signal("-HUP");
    w.wait_for("policy reloaded", FAILSAFE).unwrap();
    let pcap = temp("drop-server.pcap");
    let dump = Tcpdump::start(&t, 's', &t.dev("s0"), &pcap, "tcp port 8080");
    assert_eq!(http_get(&t, "http://198.51.100.1:8080/"), None, "dropped");
    let seen = dump.read(&pcap);
    // The live page's rule counters: both flows decided by the rule, the second one dropped
    // (published by the workers about twice a second: waited for).
    let t0 = Instant::now();
    let rule = loop {
        let j = crate::live_page::live_json(&t.ns('r'), &page);
        assert_eq!(j["mode"], "inline", "{j}");
        let r = j["rules"][0].clone();
        if r["flows"].as_u64() >= Some(2) && r["dropped_packets"].as_u64() >= Some(1) {
            break r;
        }
        assert!(t0.elapsed() < FAILSAFE, "the live page's rules: {j}");
        std::thread::sleep(Duration::from_millis(200));
    };
    assert_eq!(rule["rule"], "web", "{rule}");
    // The policy's path replaced by /dev/zero (issue 33: it grew the process to 7 GB, deaf to
    // SIGTERM): refused at once, the old policy stays, and SIGTERM below still stops the run.
    std::fs::remove_file(&policy).unwrap();
    std::os::unix::fs::symlink("/dev/zero", &policy).unwrap();
    w.signal("-HUP");
    w.wait_for("policy not reloaded", FAILSAFE).unwrap();
    let refused = w.lines.last().unwrap();
    assert!(
        refused.contains("not a regular file (a character device)"),
        "{refused}"
    );
    let log = w.stop();
    // On the server's wire: nothing the client sent after the verdict. The first request
    // taught the Host Cache that the server speaks HTTP, so the second flow is named at its SYN
    // and nothing of it arrives; named by payload, only its handshake would (every packet from
    // the client 40-60 bytes of headers, no request).
    let from_client = packets(&seen, "192.0.2.1", "198.51.100.1.8080");
    for h in &from_client {
        let len = length(h).unwrap();
        assert!(
            len <= 60,
            "a packet with payload reached the server: {h}\n{seen:#?}"
        );
    }
    // The record says what was done; the summary's counters went on across the reload.
    let recs = std::fs::read_to_string(&out).unwrap();
    let dropped: Vec<serde_json::Value> = recs
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .filter(|r: &serde_json::Value| r["action"] == "drop")
        .collect();
    assert_eq!(dropped.len(), 1, "{recs}");
    let forwarded = recs
        .lines()
        .filter(|l| l.contains("\"action\":\"forward\""))
        .count();
    assert_eq!(
        forwarded, 1,
        "the first request's flow says what it got: {recs}"
    );
    assert_eq!(dropped[0]["rule"], "web");
    let ttb = dropped[0]["ttb_pkts"].as_u64().unwrap();
    let c2s = dropped[0]["c2s_pkts"].as_u64().unwrap();
    assert!(
        from_client.len() as u64 <= ttb.saturating_sub(1),
        "{} packets reached the server, the verdict came at packet {ttb}: {seen:#?}",
        from_client.len()
    );
    eprintln!(
        "second flow named by {} at packet {ttb}; {} of its {c2s} client packets reached the server",
        dropped[0]["method"],
        from_client.len()
    );
    assert_eq!(dropped[0]["app"], "HTTP");
    assert!(dropped[0]["dropped_pkts"].as_u64().unwrap() >= 1);
    let row = log
        .lines()
        .find(|l| l.starts_with("web\t"))
        .unwrap_or_else(|| panic!("{log}"));
    let cols: Vec<&str> = row.split('\t').collect();
    assert!(
        cols[2].parse::<u64>().unwrap() >= 2,
        "both flows decided by the rule: {row}"
    );
    assert!(cols[5].parse::<u64>().unwrap() >= 1, "{row}");
    eprintln!("{log}");
}

/// `--check` on a policy that is not a regular file, or too large, or with a line or a name of
/// megabytes (issue 33): a short error at once, exit 2; nothing here needs root.
/// `--datapath ebpf` refuses a rate limit (`--check` too: before anything is attached), and,
/// built without the `ebpf` feature, says how to build it; no root needed.
#[test]
fn ebpf_datapath_refuses_rates_it_cannot_shape_and_says_how_to_build_it() {
    let policy = temp("ebpf-rate.toml");
    let rule = |extra: &str| {
        format!("[[rule]]\nname = \"slow-web\"\napp = \"HTTP\"\naction = \"rate-limit\"\n{extra}\n")
    };
    std::fs::write(&policy, rule("rate = \"1000pps\"")).unwrap();
    let run = |args: &[&str], p: &Path| {
        let o = Command::new(bin())
            .arg("inline")
            .args(args)
            .arg("--policy")
            .arg(p)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        (
            o.status.code(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    for args in [
        &["--check", "--datapath", "ebpf"][..],
        &["--datapath", "ebpf", "-i", "lo"][..],
    ] {
        let (code, err) = run(args, &policy);
        assert_eq!(code, Some(2), "{args:?}: {err}");
        assert!(
            err.contains(
                "rule \"slow-web\": a rate in packets per second cannot be enforced by \
                 --datapath ebpf"
            ),
            "{args:?}: {err}"
        );
    }
    // One HTB class per rule: a rate per flow is refused; a bit rate per rule is taken.
    std::fs::write(&policy, rule("rate = \"1mbit\"\nper = \"flow\"")).unwrap();
    let (code, err) = run(&["--check", "--datapath", "ebpf"], &policy);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("per = \"flow\" cannot be enforced"), "{err}");
    std::fs::write(&policy, rule("rate = \"1mbit\"")).unwrap();
    let (code, err) = run(&["--check", "--datapath", "ebpf"], &policy);
    assert_eq!(code, Some(0), "{err}");
    std::fs::write(&policy, rule("rate = \"1000pps\"")).unwrap();
    // NFQUEUE's options are not taken with it, nor is it without an interface.
    let (code, err) = run(&["--datapath", "ebpf", "-i", "lo", "--queue", "0"], &policy);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("--queue is for --datapath nfqueue"), "{err}");
    let (code, err) = run(&["--datapath", "ebpf"], &policy);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("needs --interface"), "{err}");
    // `live --capture xdp` takes no classic BPF filter (it is for packet sockets), in any
    // build (where tcpdump, which compiles it, is there).
    let has_tcpdump = Command::new("tcpdump")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    // `wirespeed live ARGS`: its exit code and standard error.
    let live = |args: &[&str]| {
        let o = Command::new(bin())
            .arg("live")
            .args(args)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        (
            o.status.code(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    if has_tcpdump {
        let (code, err) = live(&["-i", "lo", "--capture", "xdp", "--filter", "udp"]);
        assert_eq!(code, Some(2), "{err}");
        assert!(
            err.contains("--filter is for packet sockets") && err.contains("--capture xdp"),
            "{err}"
        );
    }
    // The heartbeat's fail-open time is the eBPF data path's alone.
    let (code, err) = run(&["--queue", "0", "--fail-open-ms", "10"], &policy);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("--fail-open-ms is for --datapath ebpf"),
        "{err}"
    );
    if !cfg!(feature = "ebpf") {
        std::fs::write(&policy, "").unwrap();
        let (code, err) = run(&["--datapath", "ebpf", "-i", "lo"], &policy);
        assert_eq!(code, Some(2), "{err}");
        assert!(
            err.contains("built without the ebpf feature; build with --features ebpf"),
            "{err}"
        );
        // `live --capture xdp` loads an XDP program: the same feature.
        let (code, err) = live(&["-i", "lo", "--capture", "xdp", "--duration", "1"]);
        assert_eq!(code, Some(2), "{err}");
        assert!(
            err.contains("--capture xdp: this wirespeed was built without the ebpf feature"),
            "{err}"
        );
    }
}

#[test]
fn check_refuses_devices_fifos_and_huge_policies_quickly() {
    let run = |p: &Path| {
        let o = Command::new(bin())
            .args(["inline", "--check", "--policy"])
            .arg(p)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        (
            o.status.code(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    let (code, err) = run(Path::new("/dev/zero"));
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("/dev/zero: not a regular file (a character device)"),
        "{err}"
    );
    let dir = temp("check");
    std::fs::create_dir_all(&dir).unwrap();
    let fifo = dir.join("fifo.toml");
    let _ = std::fs::remove_file(&fifo);
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let (code, err) = run(&fifo);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("(a FIFO)"), "{err}");
    let big = dir.join("big.toml");
    std::fs::write(&big, format!("x = {}", "a".repeat(50 << 20))).unwrap();
    let (code, err) = run(&big);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("larger than 4 MiB") && err.len() < 300,
        "{err}"
    );
    let line = dir.join("line.toml");
    std::fs::write(&line, format!("x = {}", "a".repeat(3 << 20))).unwrap();
    let (code, err) = run(&line);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("line 1, column 5") && err.len() < 600, "{err}");
    let name = dir.join("name.toml");
    std::fs::write(
        &name,
        format!(
            "[[rule]]\nname = \"{}\"\napp = \"HTTP\"\naction = \"drop\"\n",
            "n".repeat(3 << 20)
        ),
    )
    .unwrap();
    let (code, err) = run(&name);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("the name") && err.len() < 400, "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A rule by risk (issue 21 item 2): HTTP requests naming their server by address (nDPI's
/// "HTTP/TLS/QUIC Numeric Hostname/SNI") are dropped from the request on; a request naming it
/// by host name goes through.
#[test]
fn a_risk_rule_drops_requests_to_numeric_hosts() {
    if !can_run("inline risk") {
        return;
    }
    let t = Topo::new("h");
    let policy = temp("risk.toml");
    std::fs::write(
        &policy,
        "[[rule]]\nname = \"numeric-host\"\nrisk = \"HTTP/TLS/QUIC Numeric Hostname/SNI\"\n\
         action = \"drop\"\n",
    )
    .unwrap();
    t.rules(&policy);
    let _srv = t.http_server(&[]);
    let out = temp("risk.json");
    // Payload inspection alone names the flows (no end-point learnt from the first flow names
    // the second at its SYN).
    let w = Inline::start(&t, &policy, &out, &["--classifiers", "port,dpi"]);
    assert_eq!(
        http_get_as(&t, "http://198.51.100.1:8080/", Some("www.example.org")),
        Some(200),
        "a named host passes"
    );
    let pcap = temp("risk-server.pcap");
    let dump = Tcpdump::start(&t, 's', &t.dev("s0"), &pcap, "tcp port 8080");
    assert_eq!(
        http_get(&t, "http://198.51.100.1:8080/"),
        None,
        "a numeric host is dropped"
    );
    let seen = dump.read(&pcap);
    w.stop();
    for h in packets(&seen, "192.0.2.1", "198.51.100.1.8080") {
        assert!(
            length(h).unwrap() <= 60,
            "the request reached the server: {h}\n{seen:#?}"
        );
    }
    let recs: Vec<serde_json::Value> = std::fs::read_to_string(&out)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let dropped: Vec<_> = recs.iter().filter(|r| r["action"] == "drop").collect();
    assert_eq!(dropped.len(), 1, "{recs:#?}");
    assert_eq!(dropped[0]["rule"], "numeric-host");
    assert!(dropped[0]["risks"]
        .as_str()
        .unwrap()
        .contains("Numeric Hostname"));
    assert!(recs
        .iter()
        .any(|r| r["http_host"] == "www.example.org" && r["action"] == "forward"));
}

#[test]
fn marked_flows_carry_the_dscp_in_both_directions() {
    if !can_run("inline mark") {
        return;
    }
    let t = Topo::new("m");
    let policy = temp("mark.toml");
    std::fs::write(
        &policy,
        "[[rule]]\nmaster = \"HTTP\"\naction = \"mark\"\ndscp = \"AF21\"\n",
    )
    .unwrap();
    t.rules(&policy);
    let dir = temp("www");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("big"), vec![b'x'; 400_000]).unwrap();
    let _srv = t.http_server(&["--directory", dir.to_str().unwrap()]);
    let out = temp("mark.json");
    let w = Inline::start(&t, &policy, &out, &[]);
    let (ps, pc) = (temp("mark-s.pcap"), temp("mark-c.pcap"));
    let ds = Tcpdump::start(&t, 's', &t.dev("s0"), &ps, "tcp port 8080");
    let dc = Tcpdump::start(&t, 'c', &t.dev("c0"), &pc, "tcp port 8080");
    assert_eq!(http_get(&t, "http://198.51.100.1:8080/big"), Some(200));
    let (seen_s, seen_c) = (ds.read(&ps), dc.read(&pc));
    let log = w.stop();
    // The request (the packet that names the flow) and everything after it, both ways: AF21 is
    // DSCP 18, TOS 0x48. The handshake before the verdict is not marked.
    let req: Vec<_> = packets(&seen_s, "192.0.2.1", "198.51.100.1.8080")
        .into_iter()
        .filter(|h| length(h).unwrap() > 60)
        .collect();
    assert!(!req.is_empty(), "{seen_s:#?}");
    for h in &req {
        assert_eq!(tos(h), Some(0x48), "{h}");
    }
    let data: Vec<_> = packets(&seen_c, "198.51.100.1.8080", "192.0.2.1")
        .into_iter()
        .filter(|h| length(h).unwrap() > 60)
        .collect();
    assert!(data.len() > 100, "{}", data.len());
    let unmarked: Vec<_> = data.iter().filter(|h| tos(h) != Some(0x48)).collect();
    assert!(
        unmarked.is_empty(),
        "{} of {} unmarked: {unmarked:#?}",
        unmarked.len(),
        data.len()
    );
    eprintln!(
        "{} request and {} response packets with payload, all DSCP 18\n{log}",
        req.len(),
        data.len()
    );
}

#[test]
fn a_rate_limit_is_never_exceeded() {
    if !can_run("inline rate") {
        return;
    }
    let t = Topo::new("r");
    let policy = temp("rate.toml");
    // iperf3's flows are named by nothing: the rule matches by end-point.
    std::fs::write(
        &policy,
        "[[rule]]\nname = \"iperf\"\ndst_port = 5201\naction = \"rate-limit\"\nrate = \"20mbit\"\n",
    )
    .unwrap();
    t.rules(&policy);
    let _srv = t.spawn('s', &["iperf3", "-s", "-B", "198.51.100.1", "-1"]);
    t.wait_listening('s', "tcp", 5201);
    let out = temp("rate.json");
    let w = Inline::start(&t, &policy, &out, &[]);
    // 60 Mbit/s of UDP offered for 4 s; the receiver's rate is the judge.
    let o = t.run(
        'c',
        &[
            "iperf3",
            "-c",
            "198.51.100.1",
            "-u",
            "-b",
            "60M",
            "-t",
            "4",
            "-l",
            "1200",
            "-J",
        ],
    );
    let log = w.stop();
    let j: serde_json::Value = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&o.stdout)));
    let got = j["end"]["sum_received"]["bits_per_second"]
        .as_f64()
        .or_else(|| j["end"]["sum"]["bits_per_second"].as_f64())
        .unwrap();
    // iperf3 counts UDP payload; the bucket counts IP bytes (28 more per 1,200-byte datagram).
    let ip_rate = got * (1200.0 + 28.0) / 1200.0;
    eprintln!(
        "received {:.2} Mbit/s of payload, {:.2} Mbit/s of IP\n{log}",
        got / 1e6,
        ip_rate / 1e6
    );
    // Never more than the limit (its burst spread over the 4 s, and 10% for iperf3's own
    // interval): a load-proof bound, as long as every packet went through the process. How close
    // to the limit the flow came is printed, not judged (a loaded machine delivers less; the
    // bucket's accuracy is judged on a test clock by crates/act's tests).
    let (queued, seen) = queued_and_seen(&t, &log);
    assert!(got > 0.0, "nothing went through");
    if queued <= seen {
        assert!(
            ip_rate <= 22e6,
            "{:.2} Mbit/s against a 20 Mbit/s limit",
            ip_rate / 1e6
        );
    } else {
        eprintln!(
            "not judged: the kernel let {} packets past the process (fail-open)",
            queued - seen
        );
    }
}

#[test]
fn traffic_goes_on_within_a_second_of_kill_9() {
    if !can_run("inline kill") {
        return;
    }
    let t = Topo::new("k");
    let policy = temp("kill.toml");
    std::fs::write(&policy, "").unwrap();
    t.rules(&policy);
    let out = temp("kill.json");
    // No hand-off: every packet goes through the process, so its death is felt.
    let w = Inline::start(&t, &policy, &out, &["--no-bypass"]);
    // 100 pings a second, each with its receive time; the process killed once 60 replies came
    // through it, ping stopped once 200 more came (its count is a failsafe).
    let mut ping = Command::new("ip")
        .args([
            "netns",
            "exec",
            &t.ns('c'),
            "ping",
            "-D",
            "-i",
            "0.01",
            "-c",
            "20000",
            "-W",
            "1",
        ])
        .arg("198.51.100.1")
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let (tx, replies) = mpsc::channel();
    let stdout = ping.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        for l in BufReader::new(stdout).lines().map_while(Result::ok) {
            if l.contains("bytes from") {
                let _ = tx.send(());
            }
            text.push_str(&l);
            text.push('\n');
        }
        text
    });
    let reply = |what: &str| {
        replies
            .recv_timeout(FAILSAFE)
            .unwrap_or_else(|_| panic!("no ping reply {what} within {FAILSAFE:?}"))
    };
    for _ in 0..60 {
        reply("through the process");
    }
    while replies.try_recv().is_ok() {}
    let pid = w.child.id();
    let killed_at = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64();
    assert!(Command::new("kill")
        .args(["-9", &pid.to_string()])
        .status()
        .unwrap()
        .success());
    for _ in 0..200 {
        reply("after kill -9");
    }
    let _ = Command::new("kill")
        .args(["-INT", &ping.id().to_string()])
        .status();
    let _ = ping.wait();
    let text = reader.join().unwrap();
    // `[1700000000.123456] 64 bytes from ...: icmp_seq=N ...`: reply times.
    let times: Vec<f64> = text
        .lines()
        .filter(|l| l.contains("bytes from"))
        .filter_map(|l| l.strip_prefix('[')?.split(']').next()?.parse().ok())
        .collect();
    let before = times.iter().filter(|&&x| x < killed_at).count();
    let after: Vec<f64> = times.iter().copied().filter(|&x| x >= killed_at).collect();
    assert!(before > 50, "replies before the kill: {before}\n{text}");
    let first_after = after.first().copied().unwrap_or(f64::INFINITY);
    eprintln!(
        "{before} replies before kill -9, {} after; the first {:.3} s after it",
        after.len(),
        first_after - killed_at
    );
    assert!(first_after - killed_at < 1.0, "{text}");
    assert!(after.len() > 150, "{text}");
    drop(w);
}

#[test]
fn tls_is_dropped_by_the_server_name_and_other_names_pass() {
    if !can_run("inline tls") {
        return;
    }
    let t = Topo::new("t");
    let policy = temp("tls.toml");
    std::fs::write(
        &policy,
        "[[rule]]\nname = \"no-yt\"\napp = \"YouTube\"\naction = \"drop\"\n",
    )
    .unwrap();
    t.rules(&policy);
    let (key, cert) = (temp("tls.key"), temp("tls.crt"));
    let o = Command::new("openssl")
        .args([
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=test",
        ])
        .arg("-keyout")
        .arg(&key)
        .arg("-out")
        .arg(&cert)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let _srv = t.spawn(
        's',
        &[
            "openssl",
            "s_server",
            "-accept",
            "8443",
            "-www",
            "-key",
            key.to_str().unwrap(),
            "-cert",
            cert.to_str().unwrap(),
        ],
    );
    t.wait_listening('s', "tcp", 8443);
    let out = temp("tls.json");
    let w = Inline::start(&t, &policy, &out, &[]);
    let hello = |name: &str| {
        let o = t.run(
            'c',
            &[
                "timeout",
                "4",
                "openssl",
                "s_client",
                "-connect",
                "198.51.100.1:8443",
                "-servername",
                name,
            ],
        );
        String::from_utf8_lossy(&o.stdout).contains("Cipher is")
    };
    assert!(
        hello("www.example.org"),
        "a name no rule names: the handshake completes"
    );
    let pcap = temp("tls-server.pcap");
    let dump = Tcpdump::start(&t, 's', &t.dev("s0"), &pcap, "tcp port 8443");
    assert!(!hello("www.youtube.com"), "dropped at the ClientHello");
    let seen = dump.read(&pcap);
    let log = w.stop();
    let from_client = packets(&seen, "192.0.2.1", "198.51.100.1.8443");
    let with_payload: Vec<_> = from_client
        .iter()
        .filter(|h| length(h).unwrap() > 60)
        .collect();
    assert!(
        with_payload.is_empty(),
        "a ClientHello reached the server: {seen:#?}"
    );
    let recs = std::fs::read_to_string(&out).unwrap();
    let yt: Vec<serde_json::Value> = recs
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .filter(|r: &serde_json::Value| r["sni"] == "www.youtube.com")
        .collect();
    assert!(!yt.is_empty(), "{recs}");
    assert!(
        yt.iter()
            .all(|r| r["action"] == "drop" && r["app"] == "YouTube"),
        "{recs}"
    );
    eprintln!(
        "{} client packets of the dropped handshake reached the server, none with payload\n{log}",
        from_client.len()
    );
}

/// A DNS server of a few lines (python's socket module): answers every A query with
/// 203.0.113.5, as RFC 1035 §4.1 lays the message out.
const DNS_SERVER: &str = r#"
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("198.51.100.1", 53))
while True:
    q, a = s.recvfrom(512)
    end = q.index(b"\0", 12) + 5
    r = q[:2] + b"\x81\x80" + q[4:6] + b"\x00\x01\x00\x00\x00\x00" + q[12:end]
    r += b"\xc0\x0c\x00\x01\x00\x01\x00\x00\x00\x3c\x00\x04\xcb\x00\x71\x05"
    s.sendto(r, a)
"#;

/// Its client: `n` queries for `NAME`, each from a socket of its own; prints the answers.
const DNS_CLIENT: &str = r#"
import socket, sys
name, n = sys.argv[1], int(sys.argv[2])
qname = b"".join(bytes([len(p)]) + p.encode() for p in name.split(".")) + b"\0"
for i in range(n):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.settimeout(2)
    s.sendto(bytes([0x12, i]) + b"\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00" + qname + b"\x00\x01\x00\x01", ("198.51.100.1", 53))
    r, _ = s.recvfrom(512)
    print(".".join(str(b) for b in r[-4:]))
"#;

#[test]
fn dns_is_marked_on_two_queues() {
    if !can_run("inline dns") {
        return;
    }
    let t = Topo::new("n");
    let policy = temp("dns.toml");
    std::fs::write(
        &policy,
        "[[rule]]\nname = \"dns\"\nmaster = \"DNS\"\naction = \"mark\"\ndscp = \"EF\"\n",
    )
    .unwrap();
    // Two queues, one worker each: the rules balance connections over them.
    let o = Command::new(bin())
        .args(["inline", "--queue", "0:1", "--print-rules", "--policy"])
        .arg(&policy)
        .output()
        .unwrap();
    let rules = String::from_utf8_lossy(&o.stdout);
    assert!(rules.contains("--queue-balance 0:1"), "{rules}");
    for line in rules.lines().filter(|l| l.starts_with("iptables")) {
        let args: Vec<&str> = line.split_whitespace().collect();
        assert!(t.run('r', &args).status.success(), "{line}");
    }
    let _srv = t.spawn('s', &["python3", "-c", DNS_SERVER]);
    t.wait_listening('s', "udp", 53);
    let out = temp("dns.json");
    let w = Inline::start_on(&t, "0:1", &policy, &out, &[]);
    assert!(
        w.lines
            .iter()
            .any(|l| l.contains("inline: ready: 2 queue(s)")),
        "{:?}",
        w.lines
    );
    let (ps, pc) = (temp("dns-s.pcap"), temp("dns-c.pcap"));
    let ds = Tcpdump::start(&t, 's', &t.dev("s0"), &ps, "udp port 53");
    let dc = Tcpdump::start(&t, 'c', &t.dev("c0"), &pc, "udp port 53");
    let o = t.run('c', &["python3", "-c", DNS_CLIENT, "www.example.org", "5"]);
    let answers = String::from_utf8_lossy(&o.stdout);
    assert_eq!(
        answers.lines().filter(|l| *l == "203.0.113.5").count(),
        5,
        "{answers}"
    );
    let (seen_s, seen_c) = (ds.read(&ps), dc.read(&pc));
    let log = w.stop();
    // Each query names its flow (DNS by payload): it and its answer carry EF (DSCP 46, TOS 0xb8).
    let queries = packets(&seen_s, "192.0.2.1", "198.51.100.1.53");
    let answers = packets(&seen_c, "198.51.100.1.53", "192.0.2.1");
    assert_eq!(
        (queries.len(), answers.len()),
        (5, 5),
        "{seen_s:#?}{seen_c:#?}"
    );
    for h in queries.iter().chain(&answers) {
        assert_eq!(tos(h), Some(0xb8), "{h}");
    }
    let recs = std::fs::read_to_string(&out).unwrap();
    let dns = recs
        .lines()
        .filter(|l| l.contains("\"rule\":\"dns\""))
        .count();
    assert_eq!(dns, 5, "{recs}");
    eprintln!("5 queries and 5 answers, all EF\n{log}");
}

#[test]
fn a_stalled_process_under_a_flood_fails_open() {
    if !can_run("inline stall") {
        return;
    }
    let t = Topo::new("s");
    let policy = temp("stall.toml");
    std::fs::write(
        &policy,
        "[[rule]]\nmaster = \"ICMP\"\naction = \"forward\"\n",
    )
    .unwrap();
    t.rules(&policy);
    let _srv = t.spawn('s', &["iperf3", "-s", "-B", "198.51.100.1", "-1"]);
    t.wait_listening('s', "tcp", 5201);
    let out = temp("stall.json");
    // Every packet through the process, and a short queue: a stall fills it at once.
    let w = Inline::start(&t, &policy, &out, &["--no-bypass", "--queue-len", "64"]);
    // A UDP flood through the router while the process is stopped (SIGSTOP) for 1.5 s: what
    // the kernel cannot queue it must let through, and pings must get answers meanwhile.
    let flood = t.spawn(
        'c',
        &[
            "iperf3",
            "-c",
            "198.51.100.1",
            "-u",
            "-b",
            "200M",
            "-l",
            "200",
            "-t",
            "600",
        ],
    );
    // The flood under way before the stop (it goes on until the ping is done: the guard ends
    // it; its 600 s are a failsafe).
    wait_until("the flood through the queue", || nfqueue_packets(&t) > 2000);
    w.signal("-STOP");
    let o = t.run(
        'c',
        &["ping", "-i", "0.01", "-c", "100", "-W", "1", "198.51.100.1"],
    );
    w.signal("-CONT");
    drop(flood);
    let text = String::from_utf8_lossy(&o.stdout);
    let replies = text.lines().filter(|l| l.contains("bytes from")).count();
    let log = w.stop();
    eprintln!("{replies} of 100 pings answered while the process was stopped\n{log}");
    // The first pings wait in the full queue (the kernel holds them for the process); the rest
    // pass unseen. The kernel counts fail-open accepts nowhere: the firewall rule's own packet
    // counter against the packets wirespeed received says how many.
    assert!(replies >= 80, "{text}");
    let (queued, seen) = queued_and_seen(&t, &log);
    eprintln!("{queued} packets hit the NFQUEUE rule, wirespeed received {seen}");
    assert!(
        queued > seen + 1000,
        "the kernel let packets through unseen: {queued} queued, {seen} received"
    );
}

impl Drop for Inline {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
