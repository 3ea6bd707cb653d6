//! `--tunnels inner|outer|both` (issue 33, item 18) on the corpus captures that hold tunnels
//! (GRE, VXLAN, GTP-U, Teredo, CAPWAP, IP-in-IP): with `both`, every inner flow's
//! `tunnel_parent` names an outer record whose 5-tuple is the tunnel's as tshark dissects the
//! frame's first IP layer; every record outside a tunnel counts as many packets as tshark shows
//! frames of its first-layer 5-tuple; the inner records are `--tunnels inner`'s and the others
//! `--tunnels outer`'s (but for ids); and the records are the same with 1 and 2 workers.

use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use crate::common::{bin, ok, tools};

/// The records of `classify FILE ARGS` (JSON lines, one worker).
fn records(file: &Path, args: &[&str]) -> Vec<Value> {
    // Exit 1: a damaged capture of the corpus, whose good packets still count.
    let out = bin()
        .args(["classify", "-q", "--workers", "1"])
        .args(args)
        .arg(file)
        .output()
        .unwrap();
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// A record without the fields that differ by mode by design (its id and its parent's).
fn body(r: &Value) -> String {
    let mut r = r.clone();
    let o = r.as_object_mut().unwrap();
    o.remove("flow_id");
    o.remove("tunnel_parent");
    r.to_string()
}

/// An unordered 5-tuple and VLAN: protocol, VLAN and the two (address, port) ends, sorted.
type Tuple = (u64, u64, (String, u64), (String, u64));

fn tuple_of(r: &Value) -> Tuple {
    let a = (
        r["src_ip"].as_str().unwrap().to_string(),
        r["src_port"].as_u64().unwrap(),
    );
    let b = (
        r["dst_ip"].as_str().unwrap().to_string(),
        r["dst_port"].as_u64().unwrap(),
    );
    let (a, b) = if a <= b { (a, b) } else { (b, a) };
    (
        r["ip_proto"].as_u64().unwrap(),
        r["vlan"].as_u64().unwrap(),
        a,
        b,
    )
}

/// One frame as tshark dissects it: its time (µs) and the 5-tuple of its first IP layer, and
/// every address of every IP layer.
struct Frame {
    us: u64,
    outer: Tuple,
    addrs: Vec<String>,
}

fn tshark_frames(file: &Path) -> Vec<Frame> {
    let fields = [
        "frame.time_epoch",
        "frame.protocols",
        "ip.src",
        "ip.dst",
        "ipv6.src",
        "ipv6.dst",
        "ip.proto",
        "ipv6.nxt",
        "udp.srcport",
        "udp.dstport",
        "tcp.srcport",
        "tcp.dstport",
        "vlan.id",
        "frame.len",
        "ip.len",
    ];
    let mut cmd = std::process::Command::new("tshark");
    cmd.arg("-r")
        .arg(file)
        .args(["-T", "fields", "-E", "occurrence=a", "-E", "aggregator=,"]);
    for f in fields {
        cmd.args(["-e", f]);
    }
    let out = ok(&mut cmd);
    let mut frames = Vec::new();
    for line in String::from_utf8(out.stdout).unwrap().lines() {
        let v: Vec<Vec<&str>> = line
            .split('\t')
            .map(|f| f.split(',').filter(|s| !s.is_empty()).collect())
            .collect();
        let first = |i: usize| v.get(i).and_then(|x| x.first().copied());
        let (secs, frac) = first(0).unwrap().split_once('.').unwrap();
        let us = secs.parse::<u64>().unwrap() * 1_000_000 + frac[..6].parse::<u64>().unwrap();
        let protos: Vec<&str> = first(1).unwrap().split(':').collect();
        let Some(at) = protos.iter().position(|p| *p == "ip" || *p == "ipv6") else {
            continue;
        };
        let v6 = protos[at] == "ipv6";
        // An IPv4 length past the frame is corrupt: wirespeed counts such a packet in no flow
        // (as nDPI), tshark dissects it.
        let len = |i: usize| first(i).map_or(0, |x| x.parse::<u64>().unwrap());
        if !v6 && len(14) > len(13) {
            continue;
        }
        let (src, dst, proto) = if v6 {
            (first(4), first(5), first(7))
        } else {
            (first(2), first(3), first(6))
        };
        let port = |i: usize| first(i).map_or(0, |p| p.parse::<u64>().unwrap());
        let ports = match protos.get(at + 1) {
            Some(&"udp") => (port(8), port(9)),
            Some(&"tcp") => (port(10), port(11)),
            _ => (0, 0),
        };
        // The innermost 802.1Q tag before the first IP header (what the flow key holds).
        let tags = protos[..at].iter().filter(|p| **p == "vlan").count();
        let vlan = match tags {
            0 => 0,
            n => v[12][n - 1].parse().unwrap(),
        };
        let a = (src.unwrap().to_string(), ports.0);
        let b = (dst.unwrap().to_string(), ports.1);
        let (a, b) = if a <= b { (a, b) } else { (b, a) };
        let addrs = [2, 3, 4, 5]
            .iter()
            .flat_map(|&i| v.get(i).cloned().unwrap_or_default())
            .map(str::to_string)
            .collect();
        frames.push(Frame {
            us,
            outer: (proto.unwrap().parse().unwrap(), vlan, a, b),
            addrs,
        });
    }
    frames
}

fn ts_us(v: &Value) -> u64 {
    // Seconds with exactly six decimals.
    let s = v.to_string();
    let (secs, frac) = s.split_once('.').unwrap();
    secs.parse::<u64>().unwrap() * 1_000_000 + format!("{frac:0<6}").parse::<u64>().unwrap()
}

/// The corpus captures in which `--tunnels inner` finds a tunnel.
fn tunnelled(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = records(dir, &[])
        .iter()
        .filter(|r| !r["tunnel"].is_null())
        .map(|r| dir.join(r["pcap"].as_str().unwrap()))
        .collect();
    files.sort();
    files.dedup();
    files
}

#[test]
fn both_modes_records_against_tshark_and_the_other_modes() {
    let test = "tunnels_both_against_tshark";
    let Some(corpus) = wirespeed_testkit::corpus(test) else {
        return;
    };
    if !tools(test, &["tshark"]) {
        return;
    }
    let files = tunnelled(&corpus.pcap_dir());
    // GRE, VXLAN, GTP-U, Teredo, CAPWAP and IP-in-IP over IPv4 and IPv6 at least.
    assert!(files.len() >= 10, "{files:?}");
    let (mut inner_checked, mut outer_checked) = (0, 0);
    for file in &files {
        let name = file.display();
        let both = records(file, &["--tunnels", "both"]);
        let inner = records(file, &["--tunnels", "inner"]);
        let outer = records(file, &["--tunnels", "outer"]);
        assert_eq!(
            outer,
            records(file, &["--no-tunnels"]),
            "{name}: --no-tunnels is --tunnels outer"
        );
        assert!(
            inner
                .iter()
                .chain(&outer)
                .all(|r| r.get("tunnel_parent").is_none()),
            "{name}: the column only with --tunnels both"
        );
        let by_id: HashMap<u64, &Value> = both
            .iter()
            .map(|r| (r["flow_id"].as_u64().unwrap(), r))
            .collect();
        assert_eq!(by_id.len(), both.len(), "{name}: ids unique");
        let frames = tshark_frames(file);
        let mut tshark_pkts: HashMap<&Tuple, u64> = HashMap::new();
        for f in &frames {
            *tshark_pkts.entry(&f.outer).or_default() += 1;
        }
        let (mut in_both, mut out_both) = (Vec::new(), Vec::new());
        let mut ours: HashMap<Tuple, u64> = HashMap::new();
        for r in &both {
            let parent = r
                .get("tunnel_parent")
                .expect("a column with --tunnels both");
            if r["tunnel"].is_null() {
                assert!(parent.is_null(), "{name}: {r}");
                // A flow of first-layer headers: its packets (with those of the flows of the same
                // 5-tuple before or after an idle end) are tshark's frames of that 5-tuple.
                let pkts = r["c2s_pkts"].as_u64().unwrap() + r["s2c_pkts"].as_u64().unwrap();
                *ours.entry(tuple_of(r)).or_default() += pkts;
                out_both.push(body(r));
                outer_checked += 1;
                continue;
            }
            // An inner flow: its parent is an outer record, the tunnel its first packet came
            // through (a frame at its first time, of the parent's 5-tuple, carrying its
            // addresses further in).
            let p = by_id
                .get(&parent.as_u64().expect("an inner flow has a parent"))
                .unwrap_or_else(|| panic!("{name}: parent of {r} has no record"));
            assert!(p["tunnel"].is_null(), "{name}: parent {p}");
            let (first, pt) = (ts_us(&r["first_ts"]), tuple_of(p));
            let (src, dst) = (r["src_ip"].as_str().unwrap(), r["dst_ip"].as_str().unwrap());
            assert!(
                frames.iter().any(|f| f.us == first
                    && f.outer == pt
                    && f.addrs.iter().any(|a| a == src)
                    && f.addrs.iter().any(|a| a == dst)),
                "{name}: no frame at {first} of {pt:?} carries {r}"
            );
            in_both.push(body(r));
            inner_checked += 1;
        }
        for (t, n) in &ours {
            assert_eq!(Some(n), tshark_pkts.get(t), "{name}: packets of {t:?}");
        }
        // The inner records are --tunnels inner's, the others --tunnels outer's.
        let sorted = |mut v: Vec<String>| {
            v.sort();
            v
        };
        let in_inner: Vec<String> = inner
            .iter()
            .filter(|r| !r["tunnel"].is_null())
            .map(body)
            .collect();
        assert_eq!(sorted(in_both), sorted(in_inner), "{name}: inner records");
        assert_eq!(
            sorted(out_both),
            sorted(outer.iter().map(body).collect()),
            "{name}: outer records"
        );
    }
    eprintln!(
        "{} captures: {inner_checked} inner flows and {outer_checked} outer or plain flows \
         checked against tshark",
        files.len()
    );
}

/// With `--tunnels both`, a tunnel's outer flows and the flows inside them meet in one worker
/// (dispatched by the outermost addresses): the records are the same with 1 worker and with 2,
/// on every corpus capture but two where one inner 5-tuple rides tunnels between different
/// end-points, which no dispatch by the outer headers can keep together with all its outer
/// flows: teredo.pcap (link-local router solicitations, the same 5-tuple from every client)
/// and 6in6tunnel.pcap (one UDP flow in two IPv6 tunnels).
#[test]
fn both_mode_records_same_with_one_and_two_workers() {
    let Some(corpus) = wirespeed_testkit::corpus("tunnels_both_workers") else {
        return;
    };
    let dir = corpus.pcap_dir();
    let files: Vec<PathBuf> = corpus
        .pcaps()
        .into_iter()
        .filter(|p| !p.ends_with("teredo.pcap") && !p.ends_with("6in6tunnel.pcap"))
        .collect();
    assert!(files.len() + 2 == corpus.pcaps().len());
    let run = |args: &[&str]| {
        let mut lines: Vec<String> = Vec::new();
        for chunk in files.chunks(64) {
            let out = bin()
                .args(["classify", "-q", "--dispatch-seed", "7"])
                .args(args)
                .args(chunk)
                .output()
                .unwrap();
            assert!(matches!(out.status.code(), Some(0 | 1)));
            lines.extend(
                String::from_utf8(out.stdout)
                    .unwrap()
                    .lines()
                    .map(str::to_string),
            );
        }
        lines.sort();
        lines
    };
    let _ = &dir;
    let one = run(&["--tunnels", "both", "--workers", "1"]);
    let parents = one
        .iter()
        .filter(|l| !l.contains("\"tunnel_parent\":null"))
        .count();
    assert!(parents > 10, "{parents} inner flows");
    // The default is one worker in this mode; more are refused, since an inner flow may ride
    // tunnels between several outer end-points (teredo.pcap, 6in6tunnel.pcap).
    let default = run(&["--tunnels", "both"]);
    assert_eq!(one, default);
    for args in [
        &["--tunnels", "both", "--workers", "2"][..],
        &["--tunnels", "both", "--workers", "2", "--reader-thread"],
    ] {
        let out = bin()
            .args(["classify", "-q"])
            .args(args)
            .arg(&files[0])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("--tunnels both runs one worker"));
    }
    // A live run is refused: its fanout may part a tunnel from the flows it carries.
    let out = bin()
        .args(["live", "--tunnels", "both", "-i", "lo"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--tunnels both"));
}

/// The flows of a run, by kind: `--tunnels both` has exactly the union of the other modes'.
#[test]
fn both_has_the_flows_of_inner_and_outer() {
    let Some(corpus) = wirespeed_testkit::corpus("tunnels_both_flow_counts") else {
        return;
    };
    let file = corpus.pcap("vxlan.pcap");
    let count = |args: &[&str]| {
        let mut by: BTreeMap<bool, usize> = BTreeMap::new();
        for r in records(&file, args) {
            *by.entry(r["tunnel"].is_null()).or_default() += 1;
        }
        by
    };
    let (inner, outer, both) = (
        count(&["--tunnels", "inner"]),
        count(&["--tunnels", "outer"]),
        count(&["--tunnels", "both"]),
    );
    assert_eq!(both.get(&false), inner.get(&false), "inner flows");
    assert_eq!(both.get(&true), outer.get(&true), "outer flows");
    assert!(inner.get(&false).is_some_and(|n| *n > 0));
}
