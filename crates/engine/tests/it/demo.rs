//! The demo trace through the whole pipeline, checked against the flows the generator made
//! (written down by construction, not by the decoder).

use std::collections::HashMap;
use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use wirespeed_engine::{gen, run_file, EngineConfig, Worker};
use wirespeed_export::JsonLinesWriter;
use wirespeed_wire::DropReason;

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("wirespeed-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// Write `gen worst-case` with `p` to a temporary file `name`: the file and its packet count.
fn worst_case_file(name: &str, p: &gen::WorstCase) -> (PathBuf, u64) {
    let path = temp(name);
    let n = gen::worst_case(BufWriter::new(File::create(&path).unwrap()), p).unwrap();
    (path, n)
}

fn records(path: &Path, cfg: EngineConfig) -> (Vec<serde_json::Value>, wirespeed_engine::Counters) {
    let mut w = Worker::new(cfg, JsonLinesWriter::new(Vec::new(), false), false);
    let out = run_file(&mut w, path, &mut |_, _| {}).unwrap();
    assert!(out.error.is_none(), "{:?}", out.error);
    let counters = w.counters();
    let bytes = w.finish().unwrap().into_inner().unwrap();
    let text = String::from_utf8(bytes).unwrap();
    let recs = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (recs, counters)
}

#[test]
fn demo_flows_match_generator() {
    let path = temp("demo.pcap");
    let (expected, extras) = gen::demo(BufWriter::new(File::create(&path).unwrap())).unwrap();
    // The port table only: the expected labels and methods are the generator's port labels
    // (the statistical model may replace them with method "stats").
    let port_only = EngineConfig {
        classifiers: wirespeed_classify::ClassifierSet::parse("port").unwrap(),
        ..EngineConfig::default()
    };
    let (recs, c) = records(&path, port_only);

    let mut got: HashMap<(String, String, u64, String, u64, u64), &serde_json::Value> =
        HashMap::new();
    for r in &recs {
        let k = (
            r["l4"].as_str().unwrap().to_string(),
            r["src_ip"].as_str().unwrap().to_string(),
            r["src_port"].as_u64().unwrap(),
            r["dst_ip"].as_str().unwrap().to_string(),
            r["dst_port"].as_u64().unwrap(),
            r["vlan"].as_u64().unwrap(),
        );
        assert!(got.insert(k, r).is_none(), "duplicate flow {r}");
    }
    assert_eq!(recs.len(), expected.len(), "{recs:#?}");
    for e in &expected {
        let k = (
            e.l4.to_string(),
            e.src_ip.clone(),
            e.src_port as u64,
            e.dst_ip.clone(),
            e.dst_port as u64,
            e.vlan as u64,
        );
        let r = got.get(&k).unwrap_or_else(|| panic!("missing flow {e:?}"));
        assert_eq!(r["c2s_pkts"], e.c2s.0, "{e:?} {r}");
        assert_eq!(r["c2s_bytes"], e.c2s.1, "{e:?} {r}");
        assert_eq!(r["s2c_pkts"], e.s2c.0, "{e:?} {r}");
        assert_eq!(r["s2c_bytes"], e.s2c.1, "{e:?} {r}");
        assert_eq!(r["app"], e.app, "label of {e:?}");
        // The payload names HTTP, TLS, SSH, DNS, … (method "dpi", after the packets it took);
        // flows whose payload says nothing keep the port guess, on their first packet.
        match r["method"].as_str() {
            Some("dpi") => assert!(r["ttb_pkts"].as_u64().unwrap() >= 1, "{r}"),
            Some("port") => assert_eq!(r["ttb_pkts"], 1),
            m => panic!("method {m:?} for {e:?}"),
        }
    }
    // Every packet is accounted for: in a flow, or dropped under a named reason.
    let in_flows: u64 = expected.iter().map(|e| e.c2s.0 + e.s2c.0).sum();
    assert_eq!(c.decoded, in_flows);
    assert_eq!(c.drops[DropReason::NotIp.index()], extras.not_ip);
    assert_eq!(c.drops[DropReason::TruncatedIpv4.index()], extras.truncated);
    assert_eq!(c.packets, in_flows + extras.not_ip + extras.truncated);
    assert_eq!(c.frag.mapped, 1, "the second fragment maps to its flow");
    // The TCP sessions end with FIN both ways.
    let fins = recs.iter().filter(|r| r["end_reason"] == "fin").count();
    assert_eq!(fins, expected.iter().filter(|e| e.l4 == "TCP").count());
    assert_eq!(c.table.closed, fins as u64, "the summary counts them too");
}

#[test]
fn classifiers_none_leaves_flows_unknown() {
    let path = temp("demo-none.pcap");
    gen::demo(BufWriter::new(File::create(&path).unwrap())).unwrap();
    let cfg = EngineConfig {
        classifiers: wirespeed_classify::ClassifierSet::none(),
        ..EngineConfig::default()
    };
    let (recs, _) = records(&path, cfg);
    assert!(!recs.is_empty());
    for r in recs {
        assert_eq!(r["app"], "Unknown");
        assert!(r["method"].is_null(), "no method: absent");
        assert_eq!(r["ttb_pkts"], 0);
    }
}

#[test]
fn worst_case_small_counts_every_packet_and_flow() {
    let p = gen::WorstCase {
        flows: 5_000,
        pkts_per_flow: 5,
        window: 1_024,
        ..gen::WorstCase::default()
    };
    let (path, n) = worst_case_file("wc.pcap", &p);
    assert_eq!(n, 25_000);
    let (recs, c) = records(&path, EngineConfig::default());
    assert_eq!(recs.len(), 5_000);
    assert_eq!(c.decoded, 25_000);
    for r in &recs {
        // Packets 1, 3, 5 go client to server, 2 and 4 back.
        assert_eq!(
            (r["c2s_pkts"].as_u64(), r["s2c_pkts"].as_u64()),
            (Some(3), Some(2))
        );
        assert_eq!(r["c2s_bytes"], 180);
    }
    // A table smaller than the window evicts, and still every packet is counted once.
    let cfg = EngineConfig {
        flow: wirespeed_flow::FlowConfig {
            capacity: 512,
            ..Default::default()
        },
        ..EngineConfig::default()
    };
    let (recs, c) = records(&path, cfg);
    let pkts: u64 = recs
        .iter()
        .map(|r| r["c2s_pkts"].as_u64().unwrap() + r["s2c_pkts"].as_u64().unwrap())
        .sum();
    assert_eq!(pkts, 25_000);
    assert!(c.table.evicted > 0);
    assert!(c.table.peak <= 512);
}

/// Each input file has its own clock: a file whose capture times are older than the previous
/// file's must not see its flows expired by the previous file's time.
#[test]
fn files_with_older_timestamps_are_not_expired_by_earlier_files() {
    let later = temp("later.pcap");
    let older = temp("older.pcap");
    let p = gen::WorstCase {
        flows: 2_000,
        window: 256,
        ..gen::WorstCase::default()
    };
    let w = |path: &PathBuf, start_ns| {
        let q = gen::WorstCase { start_ns, ..p };
        gen::worst_case(BufWriter::new(File::create(path).unwrap()), &q).unwrap();
    };
    w(&later, 2_000_000_000_000_000_000);
    w(&older, 1_000_000_000_000_000_000);
    let mut worker = Worker::new(
        EngineConfig::default(),
        JsonLinesWriter::new(Vec::new(), true),
        true,
    );
    for f in [&later, &older] {
        let out = run_file(&mut worker, f, &mut |_, _| {}).unwrap();
        assert!(out.error.is_none());
    }
    let text = String::from_utf8(worker.finish().unwrap().into_inner().unwrap()).unwrap();
    let recs: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(recs.len(), 4_000, "every flow of both files exactly once");
    for r in &recs {
        assert_eq!(r["end_reason"], "end", "{r}");
        assert_eq!(
            r["c2s_pkts"].as_u64().unwrap() + r["s2c_pkts"].as_u64().unwrap(),
            5
        );
    }
    let older_name = older.file_name().unwrap().to_str().unwrap();
    assert_eq!(
        recs.iter().filter(|r| r["pcap"] == older_name).count(),
        2_000
    );
}

/// The statistical model never names a protocol on a transport it does not run on, nor a flow
/// shorter than its P packets that carried no payload. The worst case's datagrams (18 zero
/// bytes) once made it name most flows TLS, a protocol of TCP; its flows with empty datagrams
/// (1 and 3 packets, fewer than the built-in model's 4) carry nothing to classify.
#[test]
fn the_model_names_no_protocol_off_its_transports_nor_flows_without_payload() {
    let p = gen::WorstCase {
        flows: 2_000,
        window: 256,
        ..gen::WorstCase::default()
    };
    let (path, _) = worst_case_file("wc-stats.pcap", &p);
    let (recs, _) = records(&path, EngineConfig::default());
    assert_eq!(recs.len(), 2_000);
    for r in &recs {
        assert_eq!(r["l4"], "UDP");
        for tcp_only in ["TLS", "HTTP"] {
            assert_ne!(r["stats_app"], tcp_only, "{r}");
            assert_ne!(r["master"], tcp_only, "{r}");
        }
    }
    for pkts in [1, 3] {
        let p = gen::WorstCase {
            flows: 500,
            window: 64,
            pkts_per_flow: pkts,
            frame_len: 14 + 20 + 8,
            ..gen::WorstCase::default()
        };
        let (path, _) = worst_case_file(&format!("wc-empty-{pkts}.pcap"), &p);
        let (recs, _) = records(&path, EngineConfig::default());
        assert_eq!(recs.len(), 500);
        for r in &recs {
            // Abstained: the model's field says Unknown.
            assert_eq!(r["stats_app"], "Unknown", "{r}");
            assert_ne!(r["method"], "stats", "{r}");
        }
    }
}
