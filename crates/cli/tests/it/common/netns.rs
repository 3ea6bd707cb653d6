//! Two network namespaces joined by a veth pair, for the modules that capture live (veth,
//! metrics, live_page): IPv6 off in both (no router solicitations in the captures), both ends
//! up, loopback up in both (the metrics and the page are served on the second's), addresses
//! on the ends when asked; removed, with every process in them, on drop.

use std::process::{Command, Stdio};

/// Runs `ip ARGS`; false when it fails.
pub fn ip(args: &[&str]) -> bool {
    Command::new("ip")
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// The pair: namespaces `ns`, the veth end in each `dev`.
pub struct Veth {
    pub ns: [String; 2],
    pub dev: [String; 2],
}

impl Veth {
    /// A pair named by `prefix` (three letters of the calling module's own), this process and
    /// `tag` (a letter or two of the test's own), so that tests running at once never share
    /// one; with `addrs` on the two ends when given.
    pub fn new(prefix: &str, tag: &str, addrs: Option<[&str; 2]>) -> Result<Veth, String> {
        let id = std::process::id() % 100_000;
        let v = Veth {
            ns: [format!("{prefix}A{id}{tag}"), format!("{prefix}B{id}{tag}")],
            dev: [format!("{prefix}a{id}{tag}"), format!("{prefix}b{id}{tag}")],
        };
        let (a, b) = (&v.ns[0], &v.ns[1]);
        let (da, db) = (&v.dev[0], &v.dev[1]);
        let sysctl = |ns: &str| {
            Command::new("ip")
                .args(["netns", "exec", ns, "sysctl", "-qw"])
                .args([
                    "net.ipv6.conf.all.disable_ipv6=1",
                    "net.ipv6.conf.default.disable_ipv6=1",
                ])
                .status()
                .is_ok_and(|s| s.success())
        };
        let mut ok = ip(&["netns", "add", a])
            && ip(&["netns", "add", b])
            && sysctl(a)
            && sysctl(b)
            && ip(&["link", "add", da, "type", "veth", "peer", "name", db])
            && ip(&["link", "set", da, "netns", a])
            && ip(&["link", "set", db, "netns", b]);
        if let Some([addr_a, addr_b]) = addrs {
            ok = ok
                && ip(&["-n", a, "addr", "add", addr_a, "dev", da])
                && ip(&["-n", b, "addr", "add", addr_b, "dev", db]);
        }
        ok = ok
            && ip(&["-n", a, "link", "set", da, "up"])
            && ip(&["-n", b, "link", "set", db, "up"])
            && ip(&["-n", a, "link", "set", "lo", "up"])
            && ip(&["-n", b, "link", "set", "lo", "up"]);
        if ok {
            Ok(v)
        } else {
            Err("could not create namespaces and a veth pair (not root, or no iproute2?)".into())
        }
    }
}

impl Drop for Veth {
    fn drop(&mut self) {
        // Deleting a namespace deletes the veth end inside it, and so the pair.
        for ns in &self.ns {
            ip(&["netns", "del", ns]);
        }
        ip(&["link", "del", &self.dev[0]]);
    }
}

/// Whether a test that makes namespaces can run here: Linux, root, and every one of `tools`
/// on PATH. When not: under `CI=true` a panic saying why (.ci/run runs as root and installs
/// them; CI must not pass by skipping), elsewhere `SKIPPED` on standard error and false.
pub fn can_run(test: &str, tools: &[&str]) -> bool {
    if !cfg!(target_os = "linux") {
        eprintln!("SKIPPED {test}: live capture is Linux only");
        return false;
    }
    let root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0");
    let have = |cmd: &&str| {
        Command::new("sh")
            .args(["-c", &format!("command -v {cmd}")])
            .stdout(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    };
    let missing: Vec<&str> = tools.iter().filter(|c| !have(c)).copied().collect();
    if root && missing.is_empty() {
        return true;
    }
    let why = if root {
        format!("missing {}", missing.join(", "))
    } else {
        "not root".to_string()
    };
    assert!(
        std::env::var("CI").map_or(true, |v| v != "true"),
        "{test}: cannot run under CI: {why}"
    );
    eprintln!("SKIPPED {test}: {why}");
    false
}

/// SIGTERM to a `wirespeed live` run (its standard error collected by `reader`); the whole of
/// that, once the run has exited successfully.
pub fn stop_live(mut live: std::process::Child, reader: std::thread::JoinHandle<String>) -> String {
    assert!(Command::new("kill")
        .args(["-TERM", &live.id().to_string()])
        .status()
        .unwrap()
        .success());
    let st = live.wait().unwrap();
    let log = reader.join().unwrap();
    assert!(st.success(), "{log}");
    log
}
