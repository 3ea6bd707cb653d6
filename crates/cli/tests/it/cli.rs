//! The `wirespeed` binary end to end: the README's main job, output formats, damaged input, and
//! an independent check of flows and counts against nDPI's own reader where it is installed.

use std::collections::HashMap;
use std::path::Path;
use std::process::{Command, Output};

use crate::common::{bin, demo, temp, worst_case};

fn run(cmd: &mut Command) -> Output {
    let out = cmd.output().expect("run wirespeed");
    eprintln!("{}", String::from_utf8_lossy(&out.stderr));
    out
}

/// Rows of a CSV with a header line and no quoted commas, as maps.
fn csv_rows(text: &str) -> Vec<HashMap<String, String>> {
    let mut lines = text.lines();
    let header: Vec<String> = lines
        .next()
        .unwrap_or("")
        .trim_start_matches('#')
        .split(',')
        .map(str::to_string)
        .collect();
    lines
        .map(|l| {
            header
                .iter()
                .cloned()
                .zip(l.split(',').map(str::to_string))
                .collect()
        })
        .collect()
}

/// `classify -` reads the capture from standard input as a stream (a pipe here, fed by another
/// thread), in bounded windows, with one worker and with two: the records are those of the same
/// capture read as a file.
#[test]
fn a_capture_piped_to_standard_input() {
    use std::io::Write;
    use std::process::Stdio;
    let p = demo("demo-stdin.pcap");
    let bytes = std::fs::read(&p).unwrap();
    // Every record names its input (`source`, `pcap`: the first two columns) and has an id
    // unique in the run (`flow_id`, the third: its first packet's number in the input); the
    // rest must be the same whether the capture came from a file or a pipe.
    let sorted = |out: Vec<u8>| {
        let text = String::from_utf8(out).unwrap();
        let ids: std::collections::HashSet<&str> = text
            .lines()
            .map(|r| r.split(',').nth(2).unwrap_or(""))
            .collect();
        assert_eq!(ids.len(), text.lines().count(), "flow ids repeat: {text}");
        let mut l: Vec<String> = text
            .lines()
            .map(|r| r.splitn(4, ',').nth(3).unwrap_or("").to_string())
            .collect();
        l.sort();
        l
    };
    let file = run(bin()
        .args(["classify", "--quiet", "--format", "csv"])
        .arg(&p));
    assert!(file.status.success());
    let want = sorted(file.stdout);
    assert_eq!(want.len(), 10, "header and 9 flows");
    for workers in ["1", "2"] {
        let mut child = bin()
            .args([
                "classify",
                "--quiet",
                "--format",
                "csv",
                "--workers",
                workers,
                "-",
            ])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let b = bytes.clone();
        let feeder = std::thread::spawn(move || {
            // In pieces, as a pipe delivers them.
            for c in b.chunks(700) {
                stdin.write_all(c).unwrap();
            }
        });
        let out = child.wait_with_output().unwrap();
        feeder.join().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(sorted(out.stdout), want, "{workers} workers");
    }
}

/// `wirespeed gen demo -o - | wirespeed classify -`: the generator writes to standard output and
/// the classifier reads it as a stream; the demo's 9 flows come out.
#[test]
fn gen_to_standard_output_piped_into_classify() {
    use std::process::Stdio;
    let mut gen = bin()
        .args(["gen", "demo", "-o", "-"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let out = bin()
        .args(["classify", "--quiet", "-"])
        .stdin(gen.stdout.take().unwrap())
        .output()
        .unwrap();
    assert!(gen.wait().unwrap().success());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8(out.stdout).unwrap().lines().count(), 9);
}

/// `-o -` is standard output, with one worker and with two, and no file named `-` appears.
#[test]
fn dash_output_is_standard_output() {
    let p = demo("demo-dash.pcap");
    let dir = temp("dash-cwd");
    std::fs::create_dir_all(&dir).unwrap();
    for workers in ["1", "2"] {
        let out = run(bin()
            .current_dir(&dir)
            .args(["classify", "--quiet", "--workers", workers, "-o", "-"])
            .arg(&p));
        assert!(out.status.success());
        assert_eq!(String::from_utf8(out.stdout).unwrap().lines().count(), 9);
        assert!(
            !dir.join("-").exists(),
            "{workers} workers wrote a file named -"
        );
    }
}

#[test]
fn readme_main_job_classifies_the_demo() {
    let p = demo("demo-readme.pcap");
    let out = run(bin().arg("classify").arg(&p));
    assert!(out.status.success());
    let lines: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 9);
    let stderr = String::from_utf8(out.stderr).unwrap();
    // The summary names its drops for people: the demo's ARP frame and cut IPv4 header.
    for needle in [
        "1 input,",
        "applications",
        "HTTP",
        "not IP (ARP, LLDP",
        "cut inside the IPv4 header",
        "9 flows",
    ] {
        assert!(stderr.contains(needle), "summary lacks {needle}: {stderr}");
    }
}

#[test]
fn csv_output_to_file_with_source_for_several_inputs() {
    let p = demo("demo.pcap");
    let q = temp("demo-copy.pcap");
    std::fs::copy(&p, &q).unwrap();
    let out_csv = temp("out.csv");
    let out = run(bin()
        .args(["classify", "--format", "csv", "-q", "-o"])
        .arg(&out_csv)
        .arg(&p)
        .arg(&q));
    assert!(out.status.success());
    let rows = csv_rows(&std::fs::read_to_string(&out_csv).unwrap());
    assert_eq!(rows.len(), 18);
    assert_eq!(
        rows.iter()
            .filter(|r| r["pcap"] == "demo-copy.pcap")
            .count(),
        9
    );
    assert!(rows.iter().all(|r| !r["source"].is_empty()));
}

/// A directory stands for the files in it, in name order: the same records as naming them.
#[test]
fn a_directory_classifies_the_files_in_it() {
    let dir = temp("dir-input");
    std::fs::create_dir_all(&dir).unwrap();
    let (a, b) = (dir.join("a.pcap"), dir.join("b.pcap"));
    std::fs::copy(demo("demo-dir.pcap"), &a).unwrap();
    std::fs::copy(&a, &b).unwrap();
    let by_dir = run(bin()
        .args(["classify", "--format", "csv", "-q", "--workers", "1"])
        .arg(&dir));
    let by_name = run(bin()
        .args(["classify", "--format", "csv", "-q", "--workers", "1"])
        .arg(&a)
        .arg(&b));
    assert!(by_dir.status.success() && by_name.status.success());
    let rows = csv_rows(&String::from_utf8(by_dir.stdout.clone()).unwrap());
    assert_eq!(rows.len(), 18);
    assert_eq!(rows[0]["pcap"], "a.pcap");
    assert_eq!(rows[17]["pcap"], "b.pcap");
    assert_eq!(by_dir.stdout, by_name.stdout);
}

#[test]
fn damaged_input_keeps_good_packets_and_names_file_and_offset() {
    let p = demo("demo-damaged.pcap");
    let bytes = std::fs::read(&p).unwrap();
    let cut = temp("cut.pcap");
    // Cut in the middle of the last record's data.
    std::fs::write(&cut, &bytes[..bytes.len() - 10]).unwrap();
    let out = run(bin().arg("classify").arg(&cut));
    assert_eq!(out.status.code(), Some(1), "damaged input exits 1");
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("cut.pcap: offset "), "{stderr}");
    assert_eq!(String::from_utf8(out.stdout).unwrap().lines().count(), 9);

    // A missing input is a usage error (exit 2), not a damaged one (tests/contract.rs).
    let missing = run(bin().arg("classify").arg(temp("no-such-file.pcap")));
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8(missing.stderr)
        .unwrap()
        .contains("no-such-file.pcap"));

    // A file that is no capture at all (and an empty one) is bad input, exit 2, not damage;
    // beside a good capture too, whose records are still written.
    let text = temp("not-a-capture.txt");
    std::fs::write(&text, "hello, not a capture\n").unwrap();
    let empty = temp("empty.pcap");
    std::fs::write(&empty, b"").unwrap();
    for bad in [&text, &empty] {
        let out = run(bin().arg("classify").arg(bad).arg(&p));
        assert_eq!(out.status.code(), Some(2), "{}", bad.display());
        assert_eq!(String::from_utf8(out.stdout).unwrap().lines().count(), 9);
    }

    // Standard error that cannot be written is exit 2, not a panic's 101; the records are
    // still all written.
    let full = run(bin()
        .arg("classify")
        .arg(&p)
        .stderr(std::fs::File::create("/dev/full").unwrap()));
    assert_eq!(full.status.code(), Some(2));
    assert_eq!(String::from_utf8(full.stdout).unwrap().lines().count(), 9);

    for args in [
        &["--classifiers", "bogus"][..],
        &["--max-flows", "0"],
        &["--max-flows", "99999999999"],
        &["--udp-timeout", "-1"],
        &["--udp-timeout", "nan"],
        &["--tcp-timeout", "0"],
    ] {
        let bad = run(bin().arg("classify").args(args).arg(&p));
        assert_eq!(bad.status.code(), Some(2), "{args:?}");
    }
}

/// Flows and per-direction counts as ndpiReader reports them (its `-C` CSV), keyed by the two
/// end-points in canonical order; None when ndpiReader is not installed.
fn ndpi_flows(pcap: &Path) -> Option<HashMap<(String, String), (u64, u64)>> {
    let csv = temp(&format!("{}.ndpi.csv", pcap.file_name()?.to_str()?));
    let st = Command::new("ndpiReader")
        .arg("-q")
        .arg("-i")
        .arg(pcap)
        .arg("-C")
        .arg(&csv)
        .output()
        .ok()?;
    assert!(st.status.success(), "ndpiReader failed");
    let rows = csv_rows(&std::fs::read_to_string(&csv).ok()?);
    Some(
        rows.iter()
            .map(flow_entry(
                "c_to_s_pkts",
                "s_to_c_pkts",
                "c_to_s_bytes",
                "s_to_c_bytes",
            ))
            .collect(),
    )
}

/// A CSV row by column name.
type Row = HashMap<String, String>;
/// The two end-points of a flow, "addr:port", lower first.
type Ends = (String, String);

fn flow_entry<'a>(
    cp: &'a str,
    sp: &'a str,
    cb: &'a str,
    sb: &'a str,
) -> impl Fn(&Row) -> (Ends, (u64, u64)) + 'a {
    move |r| {
        let a = format!("{}:{}", r["src_ip"], r["src_port"]);
        let b = format!("{}:{}", r["dst_ip"], r["dst_port"]);
        let n = |k: &str| r[k].parse::<u64>().unwrap();
        // Direction-free: packets and bytes of the lower end first.
        if a <= b {
            (
                (a, b),
                (n(cp) * 1_000_000_000 + n(cb), n(sp) * 1_000_000_000 + n(sb)),
            )
        } else {
            (
                (b, a),
                (n(sp) * 1_000_000_000 + n(sb), n(cp) * 1_000_000_000 + n(cb)),
            )
        }
    }
}

fn ours(pcap: &Path) -> HashMap<(String, String), (u64, u64)> {
    let out = run(bin().args(["classify", "--format", "csv", "-q"]).arg(pcap));
    let rows = csv_rows(&String::from_utf8(out.stdout).unwrap());
    rows.iter()
        .map(flow_entry("c2s_pkts", "s2c_pkts", "c2s_bytes", "s2c_bytes"))
        .collect()
}

#[test]
fn flows_and_counts_agree_with_ndpi_reader() {
    let p = demo("demo-ndpi.pcap");
    let Some(theirs) = ndpi_flows(&p) else {
        wirespeed_testkit::skip(
            "flows_and_counts_agree_with_ndpi_reader",
            "ndpiReader not installed (apt-get install libndpi-bin)",
        );
        return;
    };
    let mine = ours(&p);
    assert_eq!(mine.len(), theirs.len());
    for (k, v) in &theirs {
        let m = mine.get(k).unwrap_or_else(|| panic!("missing {k:?}"));
        if k.0.ends_with(":514") {
            // The demo's fragmented syslog datagram (client 192.168.1.10, the higher end):
            // nDPI counts only the first fragment; wirespeed maps the second one (162
            // captured bytes) to the flow as well.
            assert_eq!((m.0, m.1), (v.0, v.1 + 1_000_000_000 + 162), "{k:?}");
            continue;
        }
        assert_eq!(m, v, "{k:?} ours {m:?} nDPI {v:?}");
    }
}

/// ndpiReader's CSV export leaves flows out on large traces, so the worst case is compared by
/// its summary: unique flows and IP packets.
#[test]
fn worst_case_flow_count_agrees_with_ndpi_reader() {
    let wc = worst_case("wc.pcap", 3000, 500);
    let Ok(n) = Command::new("ndpiReader")
        .args(["-v", "1", "-i"])
        .arg(&wc)
        .output()
    else {
        wirespeed_testkit::skip(
            "worst_case_flow_count_agrees_with_ndpi_reader",
            "ndpiReader not installed (apt-get install libndpi-bin)",
        );
        return;
    };
    let text = String::from_utf8_lossy(&n.stdout);
    let field = |name: &str| -> u64 {
        let line = text
            .lines()
            .find(|l| l.trim_start().starts_with(name))
            .unwrap();
        line.split_whitespace()
            .nth(name.split_whitespace().count())
            .unwrap()
            .parse()
            .unwrap()
    };
    let (flows, packets) = (field("Unique flows:"), field("IP packets:"));
    let mine = ours(&wc);
    let my_packets: u64 = mine
        .values()
        .map(|(a, b)| a / 1_000_000_000 + b / 1_000_000_000)
        .sum();
    assert_eq!((mine.len() as u64, my_packets), (flows, packets));
}
