//! Rules belong to a run: two sessions in one process, at the same time, each with its own
//! signature and pattern files, each label their flows by their own files only; a third with the
//! built-in rules knows neither. (Before, signatures and patterns were installed once per
//! process.)

use std::sync::Arc;
use wirespeed_capture::PcapWriter;
use wirespeed_engine::gen::{FrameBuilder, L4};
use wirespeed_engine::{EngineConfig, ParallelConfig, RuleSources, Rules, Session};
use wirespeed_export::JsonLinesWriter;

/// Ethernet frames of one UDP flow whose payload no built-in inspector or signature claims:
/// two datagrams each way.
fn frames() -> Vec<Vec<u8>> {
    let fb = FrameBuilder { vlan: 0 };
    let (a, b) = ([192, 0, 2, 1], [198, 51, 100, 7]);
    let req: &[u8] = b"WSPROBE-7f3a record of a test protocol";
    let ack: &[u8] = b"WSPROBE-ack";
    let up = |p| {
        fb.ipv4(
            a,
            b,
            &L4::Udp {
                sport: 40123,
                dport: 47001,
                payload: p,
            },
        )
    };
    let down = |p| {
        fb.ipv4(
            b,
            a,
            &L4::Udp {
                sport: 47001,
                dport: 40123,
                payload: p,
            },
        )
    };
    vec![up(req), down(ack), up(req), down(ack)]
}

/// The frames as a capture file, written once per test process.
fn capture() -> std::path::PathBuf {
    let path = std::env::temp_dir().join(format!("wirespeed-rules-{}.pcap", std::process::id()));
    let mut w = PcapWriter::new(std::fs::File::create(&path).unwrap(), 1, false).unwrap();
    for (i, f) in frames().iter().enumerate() {
        let ts = 1_700_000_000_000_000_000 + i as u64 * 1_000_000;
        w.write(ts, f, f.len() as u32).unwrap();
    }
    w.finish().unwrap();
    path
}

/// A session (the runtime's facade) with these rules over the capture; the JSON records.
fn run(rules: Rules, pcap: &std::path::Path) -> Vec<serde_json::Value> {
    run_with(EngineConfig::with_rules(Arc::new(rules)), pcap)
}

/// The records of `pcap` under `cfg`, one worker.
fn run_with(cfg: EngineConfig, pcap: &std::path::Path) -> Vec<serde_json::Value> {
    let par = ParallelConfig {
        workers: 1,
        ..ParallelConfig::default()
    };
    let mut s = Session::new(cfg, par, |_| JsonLinesWriter::new(Vec::new(), false), false);
    assert!(s.run_file(pcap, &mut |_, _| {}).unwrap().error.is_none());
    let (_, sinks) = s.finish().unwrap();
    let out: Vec<u8> = sinks
        .into_iter()
        .flat_map(|w| w.into_inner().unwrap())
        .collect();
    String::from_utf8(out)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn rules(sig: &str, patterns: Option<&str>) -> Rules {
    Rules::load(&RuleSources {
        signatures: Some(sig.to_string()),
        patterns: patterns.map(str::to_string),
        ..RuleSources::default()
    })
    .unwrap()
}

#[test]
fn two_runs_in_one_process_each_use_their_own_files() {
    let pcap = capture();
    let p = pcap.clone();
    let a = std::thread::spawn(move || {
        run(
            rules("ProbeAlpha Chat udp \"WSPROBE-\"\n", Some("record of\n")),
            &p,
        )
    });
    let p = pcap.clone();
    let b = std::thread::spawn(move || run(rules("ProbeBeta Game udp \"WSPROBE-\"\n", None), &p));
    let (a, b) = (a.join().unwrap(), b.join().unwrap());
    let builtin = run(Rules::builtin(), &pcap);
    let _ = std::fs::remove_file(&pcap);
    for (recs, master, category) in [(&a, "ProbeAlpha", "Chat"), (&b, "ProbeBeta", "Game")] {
        assert_eq!(recs.len(), 1, "{recs:?}");
        let r = &recs[0];
        assert_eq!(r["master"], master, "{r}");
        assert_eq!(r["app"], master, "{r}");
        assert_eq!(r["category"], category, "{r}");
        assert_eq!(r["method"], "dpi", "{r}");
        assert_eq!(r["c2s_pkts"], 2, "{r}");
    }
    // Pattern 0 of A's file is in the first datagram; B has no patterns.
    assert_eq!(a[0]["matches"], "0", "{}", a[0]);
    assert!(b[0]["matches"].is_null(), "{}", b[0]);
    // The built-in rules know neither protocol.
    assert_eq!(builtin.len(), 1);
    for name in ["ProbeAlpha", "ProbeBeta"] {
        assert_ne!(builtin[0]["master"], name, "{}", builtin[0]);
    }
    assert!(builtin[0]["matches"].is_null());
}

/// Labels are interned per run: a name a file adds gets an id in that run's registry only.
#[test]
fn a_file_label_is_in_its_run_registry_only() {
    let a = rules("ProbeAlpha Chat udp \"WSPROBE-\"\n", None);
    let plain = Rules::builtin();
    assert!(a
        .labels()
        .find("ProbeAlpha", "ProbeAlpha", "Chat")
        .is_some());
    assert!(plain
        .labels()
        .find("ProbeAlpha", "ProbeAlpha", "Chat")
        .is_none());
    assert_eq!(a.labels().len(), plain.labels().len() + 1);
}

/// The demo capture with `classifiers` only, under `rules`.
fn demo_with(rules: Rules, classifiers: &str) -> Vec<serde_json::Value> {
    // One file a call: the tests run on threads of one process, and each removes its own.
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let path =
        std::env::temp_dir().join(format!("wirespeed-protos-{}-{n}.pcap", std::process::id()));
    wirespeed_engine::gen::demo(std::io::BufWriter::new(
        std::fs::File::create(&path).unwrap(),
    ))
    .unwrap();
    let cfg = EngineConfig {
        classifiers: wirespeed_classify::ClassifierSet::parse(classifiers).unwrap(),
        ..EngineConfig::with_rules(Arc::new(rules))
    };
    let recs = run_with(cfg, &path);
    let _ = std::fs::remove_file(&path);
    recs
}

/// An operator's protos.txt, each kind of line on the demo's flows (whose names, ports and
/// addresses `gen::demo` writes): a host rule names the HTTP request to example.com and both DNS
/// queries for it (`MASTER.APP`, category Unspecified); a port rule replaces the built-in one
/// for 80; an address rule names the ICMP flow to 1.1.1.1 when only owners are asked. A block
/// with a port is refused, naming its line.
#[test]
fn protos_rules_name_hosts_ports_and_blocks() {
    let protos =
        "# operator rules\nhost:\"example.com\"@ExampleCo\ntcp:80@Web80\nip:1.1.1.0/24@OneOne\n";
    let load = || {
        Rules::load(&RuleSources {
            protos: Some(protos.into()),
            ..Default::default()
        })
        .unwrap()
    };
    let by = |recs: &[serde_json::Value], port: u64, l4: &str| -> serde_json::Value {
        recs.iter()
            .find(|r| r["dst_port"] == port && r["l4"] == l4)
            .unwrap_or_else(|| panic!("no {l4} flow to port {port}: {recs:?}"))
            .clone()
    };
    let all = demo_with(load(), "all");
    let http = by(&all, 80, "TCP");
    assert_eq!(http["proto"], "HTTP.ExampleCo", "{http}");
    assert_eq!(http["category"], "Unspecified", "{http}");
    let dns: Vec<_> = all.iter().filter(|r| r["dst_port"] == 53).collect();
    assert_eq!(dns.len(), 2);
    assert!(dns.iter().all(|r| r["proto"] == "DNS.ExampleCo"), "{dns:?}");
    // Without the rules: the built-in list does not know example.com.
    let plain = demo_with(Rules::builtin(), "all");
    assert_eq!(by(&plain, 80, "TCP")["proto"], "HTTP");
    let port = demo_with(load(), "port");
    assert_eq!(by(&port, 80, "TCP")["app"], "Web80");
    assert_eq!(
        by(&demo_with(Rules::builtin(), "port"), 80, "TCP")["app"],
        "HTTP"
    );
    let ip = demo_with(load(), "ip");
    let icmp = by(&ip, 0, "ICMP");
    assert_eq!(
        (icmp["app"].as_str(), icmp["method"].as_str()),
        (Some("OneOne"), Some("ip"))
    );
    let e = Rules::load(&RuleSources {
        protos: Some("host:\"a.example\"@A\nip:192.0.2.0/24:443@B\n".into()),
        ..Default::default()
    })
    .unwrap_err();
    assert!(e.to_string().contains("line 2"), "{e}");
}

/// Address owners from the shipped list, by the server's block: 8.8.8.8 is Google's (the DNS
/// flow, with only the owners asked), and the owner names master and application alike.
#[test]
fn shipped_owners_name_a_google_server() {
    let recs = demo_with(Rules::builtin(), "ip");
    let dns = recs
        .iter()
        .find(|r| r["dst_ip"] == "8.8.8.8")
        .expect("the demo's DNS query to 8.8.8.8");
    assert_eq!(dns["proto"], "Google", "{dns}");
    assert_eq!(dns["method"], "ip", "{dns}");
    assert!(
        recs.iter()
            .filter(|r| r["dst_ip"].as_str().is_some_and(|a| a.starts_with("10.")))
            .all(|r| r["method"].is_null()),
        "private addresses have no owner"
    );
}

/// Owner against port, by evidence: a UDP flow on SIP's registered port whose payload no
/// inspector claims, and a ping, to a server whose block an operator's list gives an owner.
/// An owner that runs its own application there (category `chat`) names the UDP flow over the
/// port's guess, at the stronger confidence; a cloud owner does not; the ping is named by its
/// IP protocol whatever the owner.
#[test]
fn an_owner_that_runs_its_application_outranks_the_port() {
    let fb = FrameBuilder { vlan: 0 };
    let (a, b) = ([192, 0, 2, 1], [198, 51, 100, 7]);
    let udp = |src, dst, sport, dport| {
        fb.ipv4(
            src,
            dst,
            &L4::Udp {
                sport,
                dport,
                payload: b"WSPROBE-7f3a opaque bytes of no known protocol",
            },
        )
    };
    let frames = [
        udp(a, b, 40123, 5060),
        udp(b, a, 5060, 40123),
        fb.ipv4(
            a,
            b,
            &L4::Echo {
                request: true,
                id: 7,
                seq: 1,
            },
        ),
        fb.ipv4(
            b,
            a,
            &L4::Echo {
                request: false,
                id: 7,
                seq: 1,
            },
        ),
    ];
    let path = std::env::temp_dir().join(format!("wirespeed-owner-{}.pcap", std::process::id()));
    let mut w = PcapWriter::new(std::fs::File::create(&path).unwrap(), 1, false).unwrap();
    for (i, f) in frames.iter().enumerate() {
        w.write(
            1_700_000_000_000_000_000 + i as u64 * 1_000_000,
            f,
            f.len() as u32,
        )
        .unwrap();
    }
    w.finish().unwrap();
    let with_owner = |category: &str| {
        let rules = Rules::load(&RuleSources {
            networks: Some(format!("198.51.100.0/24,ExampleOwner,{category},test\n")),
            ..RuleSources::default()
        })
        .unwrap();
        let recs = run(rules, &path);
        let by = |l4: &str| {
            recs.iter()
                .find(|r| r["l4"] == l4)
                .unwrap_or_else(|| panic!("no {l4} flow: {recs:?}"))
                .clone()
        };
        (by("UDP"), by("ICMP"))
    };
    let (udp_app, icmp_app) = with_owner("chat");
    assert_eq!(udp_app["app"], "ExampleOwner", "{udp_app}");
    assert_eq!(udp_app["method"], "ip", "{udp_app}");
    assert_eq!(udp_app["confidence"], 0.7, "{udp_app}");
    assert_eq!(icmp_app["method"], "port", "{icmp_app}");
    assert_eq!(icmp_app["proto"], "ICMP", "{icmp_app}");
    let (udp_cloud, icmp_cloud) = with_owner("cloud");
    assert_eq!(udp_cloud["method"], "port", "{udp_cloud}");
    assert_ne!(udp_cloud["app"], "ExampleOwner", "{udp_cloud}");
    assert_eq!(icmp_cloud["proto"], "ICMP", "{icmp_cloud}");
    let _ = std::fs::remove_file(&path);
}
