//! Option files are bounded: a file (or device) past the cap is refused with a message naming
//! it, the cap and what it was for, before anything else is read; a pattern file of one very
//! long pattern (the worst case for an automaton's size) still builds and runs.

use std::process::Command;

use crate::common::{bin, demo, ok, temp};

fn run(cmd: &mut Command) -> (i32, String) {
    let out = cmd.output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn an_endless_option_file_is_refused_with_its_cap() {
    let pcap = demo("options-demo.pcap");
    for (flag, what, cap) in [
        ("--match", "pattern file", "4 MiB"),
        ("--model", "model", "64 MiB"),
        ("--signatures", "signature file", "4 MiB"),
    ] {
        let (code, err) = run(bin()
            .arg("classify")
            .arg(&pcap)
            .args([flag, "/dev/zero", "-q"]));
        assert_eq!(code, 2, "{flag}: {err}");
        assert!(
            err.contains("/dev/zero") && err.contains(what) && err.contains(cap),
            "{flag}: {err}"
        );
    }
}

/// `train --labels /dev/zero` read until memory ran out (issue 33's battery, run again): the
/// labels file is capped as the other option files are.
#[test]
fn an_endless_labels_file_is_refused_with_its_cap() {
    let pcap = demo("options-train.pcap");
    let (code, err) =
        run(bin()
            .arg("train")
            .arg(&pcap)
            .args(["--labels", "/dev/zero", "--folds", "0"]));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("/dev/zero") && err.contains("labels file") && err.contains("64 MiB"),
        "{err}"
    );
}

#[test]
fn one_long_pattern_builds_and_runs() {
    let pcap = demo("options-long.pcap");
    let pats = temp("long-pattern.txt");
    std::fs::write(&pats, format!("{}\nGET /\n", "A".repeat(262_144))).unwrap();
    let out = ok(bin()
        .arg("classify")
        .arg(&pcap)
        .arg("--match")
        .arg(&pats)
        .arg("-q"));
    // The demo's HTTP request holds pattern 1.
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("\"matches\":\"1\""), "{text}");
}

/// Without the cargo feature `parquet`, `--format parquet` says how to build it (exit 2, before
/// anything is read or written).
#[cfg(not(feature = "parquet"))]
#[test]
fn parquet_without_the_feature_says_how_to_build_it() {
    let pcap = demo("options-parquet.pcap");
    let out = temp("not-built.parquet");
    let (code, err) = run(bin()
        .arg("classify")
        .arg(&pcap)
        .args(["--format", "parquet", "-o"])
        .arg(&out));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("built without Parquet support")
            && err.contains("cargo build --release --features parquet"),
        "{err}"
    );
    assert!(!out.exists());
}

/// `-o` (or `--events`, `--ipfix file:`) naming one of the run's inputs is refused before
/// anything is opened for writing: the capture is left whole, also through a symbolic link,
/// and a policy named as `inline`'s output is left whole too.
#[test]
fn an_output_that_is_an_input_is_refused_and_the_input_kept() {
    let pcap = demo("options-self.pcap");
    let before = std::fs::read(&pcap).unwrap();
    let link = temp("options-self-link.pcap");
    let _ = std::fs::remove_file(&link);
    std::os::unix::fs::symlink(&pcap, &link).unwrap();
    for (flag, target) in [
        ("-o", pcap.display().to_string()),
        ("-o", link.display().to_string()),
        ("--events", pcap.display().to_string()),
        ("--ipfix", format!("file:{}", link.display())),
    ] {
        let (code, err) = run(bin().arg("classify").arg(&pcap).args([flag, &target]));
        assert_eq!(code, 2, "{flag} {target}: {err}");
        assert!(err.contains("refusing to overwrite an input"), "{err}");
        assert_eq!(std::fs::read(&pcap).unwrap(), before, "{flag} {target}");
    }
    // A rules file is an input too.
    let rules = temp("options-self-rules.txt");
    std::fs::write(&rules, "tcp:81@HTTP\n").unwrap();
    let (code, err) = run(bin()
        .arg("classify")
        .arg(&pcap)
        .arg("--rules")
        .arg(&rules)
        .arg("-o")
        .arg(&rules));
    assert_eq!(code, 2, "{err}");
    assert_eq!(std::fs::read_to_string(&rules).unwrap(), "tcp:81@HTTP\n");
    let policy = temp("options-self-policy.toml");
    std::fs::write(&policy, "default = \"forward\"\n").unwrap();
    let (code, err) = run(bin()
        .args(["inline", "--check", "--policy"])
        .arg(&policy)
        .arg("-o")
        .arg(&policy));
    assert_eq!(code, 2, "{err}");
    assert_eq!(
        std::fs::read_to_string(&policy).unwrap(),
        "default = \"forward\"\n"
    );
}

/// The largest `--max-flows` accepted (2^28 flows, over 50 GiB of tables) is refused with the
/// memory it would need where the machine has less, not aborted in the allocator (SIGABRT).
#[test]
fn a_flow_table_larger_than_memory_is_refused_with_its_size() {
    let avail_kib: u64 = std::fs::read_to_string("/proc/meminfo")
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix("MemAvailable:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap();
    if avail_kib > 48 << 20 {
        wirespeed_testkit::skip(
            "a_flow_table_larger_than_memory_is_refused_with_its_size",
            "this machine has more than 48 GiB available",
        );
        return;
    }
    let pcap = demo("options-maxflows.pcap");
    for workers in ["1", "2"] {
        let (code, err) = run(bin().arg("classify").arg(&pcap).args([
            "--max-flows",
            "268435456",
            "--workers",
            workers,
            "-q",
        ]));
        assert_eq!(code, 2, "{err}");
        assert!(
            err.contains("--max-flows 268435456") && err.contains("GiB") && err.contains("need"),
            "{err}"
        );
    }
}

/// The help says what each command takes, and offers nothing it then refuses: `list` names
/// `protocols` and takes only the files that change what is known; `--classifiers` names
/// `dpt`; `live` and `inline` offer no Parquet.
#[test]
fn help_offers_what_each_command_takes() {
    let help = |args: &[&str]| {
        let out = bin().args(args).output().unwrap();
        assert!(out.status.success(), "{args:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    let top = help(&["--help"]);
    let list_line = top
        .lines()
        .find(|l| l.trim_start().starts_with("list"))
        .unwrap();
    assert!(list_line.contains("protocols"), "{list_line}");
    let list = help(&["list", "--help"]);
    for absent in [
        "--max-flows",
        "--stats",
        "--tcp-timeout",
        "--events",
        "--batch",
    ] {
        assert!(!list.contains(absent), "list --help offers {absent}");
    }
    for present in ["--rules", "--hosts", "--networks", "protocols"] {
        assert!(list.contains(present), "list --help lacks {present}");
    }
    assert!(help(&["classify", "--help"]).contains("port, ip, dpt, dns-cache"));
    for cmd in ["live", "inline"] {
        let h = help(&[cmd, "-h"]);
        let values = h
            .lines()
            .skip_while(|l| !l.contains("--format"))
            .find(|l| l.contains("[possible values:"))
            .unwrap_or_else(|| panic!("{cmd}: {h}"));
        assert!(values.contains("json, csv]"), "{cmd}: {values}");
        let (code, err) = run(bin().args([cmd, "--format", "parquet"]));
        assert_eq!(code, 2, "{cmd}: {err}");
        assert!(err.contains("invalid value 'parquet'"), "{cmd}: {err}");
    }
}

/// A FIFO nobody writes to, given as an option file, is refused with a message naming it
/// (before, the run blocked for ever without a word); a pipe that is written to, as
/// `--match <(command)` makes, is read as a file.
#[test]
fn an_option_fifo_without_a_writer_is_refused_and_a_written_pipe_is_read() {
    let pcap = demo("options-fifo.pcap");
    let fifo = temp("options-patterns.fifo");
    let _ = std::fs::remove_file(&fifo);
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .is_ok_and(|s| s.success());
    if !made {
        wirespeed_testkit::skip("an_option_fifo", "mkfifo did not run (coreutils)");
        return;
    }
    // No writer: refused, whatever the machine's load (the open never completes).
    let (code, err) = run(bin().arg("classify").arg(&pcap).arg("--match").arg(&fifo));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("options-patterns.fifo") && err.contains("not a regular file"),
        "{err}"
    );
    // A writer: the patterns are read (the demo's HTTP request holds pattern 0, the first).
    let writer = std::thread::spawn({
        let fifo = fifo.clone();
        move || std::fs::write(&fifo, "GET /\n").unwrap()
    });
    let out = ok(bin()
        .arg("classify")
        .arg(&pcap)
        .arg("--match")
        .arg(&fifo)
        .args(["-q", "--workers", "1"]));
    writer.join().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("\"matches\":\"0\""), "{text}");
}

/// `--dpi-contexts` bounds the flows inspected at once: on a generated trace whose 200 flows
/// each name their application in their first payload (`gen heavy-tail`, all open together),
/// four contexts leave all but four flows uninspected and the summary says so; the default
/// inspects them all. Zero is refused.
#[test]
fn dpi_contexts_bound_the_flows_inspected_at_once() {
    let p = temp("dpi-contexts.pcap");
    ok(bin()
        .args(["gen", "heavy-tail", "--flows", "200", "-o"])
        .arg(&p));
    let methods = |extra: &[&str]| {
        let out = ok(bin()
            .arg("classify")
            .arg(&p)
            .args(["--workers", "1", "-o", "-"])
            .args(extra));
        let dpi = String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .filter(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["method"] == "dpi")
            .count();
        (dpi, String::from_utf8(out.stderr).unwrap())
    };
    let (all, err) = methods(&[]);
    assert_eq!(all, 200, "{err}");
    assert!(!err.contains("not inspected"), "{err}");
    let (four, err) = methods(&["--dpi-contexts", "4"]);
    assert_eq!(four, 4, "{err}");
    assert!(
        err.contains("196 flows not inspected") && err.contains("--dpi-contexts"),
        "{err}"
    );
    let out = bin()
        .arg("classify")
        .arg(&p)
        .args(["--dpi-contexts", "0", "-o", "/dev/null"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--dpi-contexts must be"));
    let _ = std::fs::remove_file(&p);
}

/// `--dpi-reclaim-after`: eight datagrams no inspector can name fill eight contexts; two
/// seconds later four DNS queries start. With the default (1 s) each takes a junk flow's context
/// and is named by payload, and the summary counts the four given up; with 0, or 3 s, none is
/// inspected, as when the flood held the pool until its flows timed out.
#[test]
fn dpi_reclaim_after_lets_flows_after_a_flood_be_inspected() {
    use wirespeed_capture::PcapWriter;
    use wirespeed_engine::gen::{FrameBuilder, L4};
    let p = temp("dpi-reclaim.pcap");
    let b = FrameBuilder { vlan: 0 };
    let mut w = PcapWriter::new(std::fs::File::create(&p).unwrap(), 1, true).unwrap();
    let t0 = 1_700_000_000_000_000_000u64;
    for i in 0..8u16 {
        let f = b.ipv4(
            [192, 0, 2, 1],
            [198, 51, 100, 1],
            &L4::Udp {
                sport: 40_000 + i,
                dport: 1080 + i,
                payload: &[0; 18],
            },
        );
        w.write(t0 + u64::from(i), &f, f.len() as u32 + 4).unwrap();
    }
    for i in 0..4u16 {
        // A query for www.example.org, type A.
        let mut q = vec![0x12, 0x34, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0];
        q.extend_from_slice(b"\x03www\x07example\x03org\x00\x00\x01\x00\x01");
        let f = b.ipv4(
            [192, 0, 2, 2],
            [198, 51, 100, 53],
            &L4::Udp {
                sport: 50_000 + i,
                dport: 53,
                payload: &q,
            },
        );
        w.write(t0 + 2_000_000_000 + u64::from(i), &f, f.len() as u32 + 4)
            .unwrap();
    }
    w.finish().unwrap();
    let named = |extra: &[&str]| {
        let out = ok(bin()
            .arg("classify")
            .arg(&p)
            .args(["--workers", "1", "--dpi-contexts", "8", "-o", "-"])
            .args(extra));
        let dns = String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
            .filter(|r| r["method"] == "dpi" && r["dns_query"] == "www.example.org")
            .count();
        (dns, String::from_utf8(out.stderr).unwrap())
    };
    let (four, err) = named(&[]);
    assert_eq!(four, 4, "{err}");
    assert!(err.contains("4 flows gave their context"), "{err}");
    for ms in ["0", "3000"] {
        let (none, err) = named(&["--dpi-reclaim-after", ms]);
        assert_eq!(none, 0, "{ms}: {err}");
        assert!(err.contains("4 flows not inspected"), "{ms}: {err}");
        assert!(!err.contains("gave their context"), "{ms}: {err}");
    }
    let _ = std::fs::remove_file(&p);
}

/// `--learn-stats` where it could learn nothing is refused, saying what it needs: without the
/// payload inspection it learns from, or without the statistical classifier that asks it.
#[test]
fn learn_stats_without_what_it_learns_from_is_refused() {
    let pcap = demo("learn-stats-refused.pcap");
    for (extra, says) in [
        (&["--classifiers", "port,stats"][..], "dpi and stats"),
        (&["--classifiers", "dpi,port"][..], "dpi and stats"),
    ] {
        let (code, err) = run(bin()
            .arg("classify")
            .arg(&pcap)
            .args(["--learn-stats", "-o", "/dev/null"])
            .args(extra));
        assert_eq!(code, 2, "{extra:?}: {err}");
        assert!(
            err.contains("--learn-stats") && err.contains(says),
            "{extra:?}: {err}"
        );
    }
    let (code, err) =
        run(bin()
            .arg("classify")
            .arg(&pcap)
            .args(["--learn-stats", "-o", "/dev/null", "-q"]));
    assert_eq!(code, 0, "{err}");
}
