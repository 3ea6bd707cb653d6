//! What flows teach later flows (issue 19, items 4, 5, 8): addresses a DNS answer named
//! (`dns-cache`) and server end-points payload inspection labelled (`host-cache`, seed 002),
//! labelling a later flow at its first packet; published at epochs of capture time, so the
//! records are the same with one worker or several.
//!
//! The captures are built here from the protocols' specifications (RFC 1035 for DNS, RFC 8446
//! §4.1.2 and RFC 6066 §3 for the ClientHello and its server name); the expected services come
//! from data/app_hosts.csv (`youtube.,YouTube,media,fun`).

use serde_json::Value;
use std::path::{Path, PathBuf};
use wirespeed_capture::PcapWriter;
use wirespeed_engine::gen::{FrameBuilder, L4};
use wirespeed_engine::{EngineConfig, ParallelConfig, Session};
use wirespeed_export::JsonLinesWriter;

const T0: u64 = 1_700_000_000_000_000_000;
const S: u64 = 1_000_000_000;
const CLIENT: [u8; 4] = [192, 0, 2, 10];
const RESOLVER: [u8; 4] = [198, 51, 100, 53];
const SERVER: [u8; 4] = [203, 0, 113, 5];

/// A DNS name in wire format (RFC 1035 §3.1).
fn qname(name: &str) -> Vec<u8> {
    let mut v = Vec::new();
    for l in name.split('.') {
        v.push(l.len() as u8);
        v.extend_from_slice(l.as_bytes());
    }
    v.push(0);
    v
}

/// A query for `name`, type A (RFC 1035 §4.1.1, §4.1.2).
fn dns_query(name: &str) -> Vec<u8> {
    let mut m = vec![0x12, 0x34, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0];
    m.extend(qname(name));
    m.extend_from_slice(&[0, 1, 0, 1]);
    m
}

/// Its response: `name` CNAME `target`, `target` A `addr`, TTL 300 (RFC 1035 §4.1.3; the
/// owner of the first answer is a pointer to the question's name at offset 12).
fn dns_response(name: &str, target: &str, addr: [u8; 4]) -> Vec<u8> {
    let mut m = vec![0x12, 0x34, 0x81, 0x80, 0, 1, 0, 2, 0, 0, 0, 0];
    m.extend(qname(name));
    m.extend_from_slice(&[0, 1, 0, 1]);
    let t = qname(target);
    let target_at = m.len() + 12;
    m.extend_from_slice(&[0xc0, 12, 0, 5, 0, 1, 0, 0, 1, 44]);
    m.extend_from_slice(&(t.len() as u16).to_be_bytes());
    m.extend(t);
    m.extend_from_slice(&[0xc0 | (target_at >> 8) as u8, target_at as u8, 0, 1, 0, 1]);
    m.extend_from_slice(&[0, 0, 1, 44, 0, 4]);
    m.extend_from_slice(&addr);
    m
}

/// A TLS 1.2 ClientHello record (RFC 8446 §4.1.2 layout), with a server_name extension
/// (RFC 6066 §3) when `sni` is given.
fn client_hello(sni: Option<&str>) -> Vec<u8> {
    let mut body = vec![0x03, 0x03];
    body.extend_from_slice(&[0x5a; 32]);
    body.push(0); // session id
    body.extend_from_slice(&[0, 2, 0x13, 0x01]); // cipher suites
    body.extend_from_slice(&[1, 0]); // compression methods
    let mut ext = Vec::new();
    if let Some(name) = sni {
        let n = name.as_bytes();
        let list_len = 3 + n.len();
        ext.extend_from_slice(&[0, 0]);
        ext.extend_from_slice(&((list_len + 2) as u16).to_be_bytes());
        ext.extend_from_slice(&(list_len as u16).to_be_bytes());
        ext.push(0);
        ext.extend_from_slice(&(n.len() as u16).to_be_bytes());
        ext.extend_from_slice(n);
    }
    body.extend_from_slice(&(ext.len() as u16).to_be_bytes());
    body.extend(ext);
    let mut hs = vec![1];
    hs.extend_from_slice(&(body.len() as u32).to_be_bytes()[1..]);
    hs.extend(body);
    let mut rec = vec![0x16, 0x03, 0x01];
    rec.extend_from_slice(&(hs.len() as u16).to_be_bytes());
    rec.extend(hs);
    rec
}

/// A capture being written: frames at capture times.
struct Cap(Vec<(u64, Vec<u8>)>);

impl Cap {
    fn udp(&mut self, t: u64, src: ([u8; 4], u16), dst: ([u8; 4], u16), payload: &[u8]) {
        let fb = FrameBuilder { vlan: 0 };
        let f = fb.ipv4(
            src.0,
            dst.0,
            &L4::Udp {
                sport: src.1,
                dport: dst.1,
                payload,
            },
        );
        self.0.push((t, f));
    }

    /// A TCP connection: handshake, the client's `payload`, the server's acknowledgement.
    fn tcp(&mut self, t: u64, sport: u16, server: ([u8; 4], u16), payload: &[u8]) {
        self.tcp_reply(t, sport, server, payload, &[], 1);
    }

    /// A TCP connection: handshake, `payload` from the client, then `reply` from the server
    /// in segments of `seg` bytes, each acknowledged (without a reply, the server's
    /// acknowledgement of the request).
    fn tcp_reply(
        &mut self,
        t: u64,
        sport: u16,
        server: ([u8; 4], u16),
        payload: &[u8],
        reply: &[u8],
        seg: usize,
    ) {
        let fb = FrameBuilder { vlan: 0 };
        let pkt = |up: bool, flags: u8, seq: u32, ack: u32, payload: &[u8]| {
            let (s, d, sp, dp) = if up {
                (CLIENT, server.0, sport, server.1)
            } else {
                (server.0, CLIENT, server.1, sport)
            };
            fb.ipv4(
                s,
                d,
                &L4::Tcp {
                    sport: sp,
                    dport: dp,
                    flags,
                    seq,
                    ack,
                    payload,
                },
            )
        };
        let ms = 1_000_000;
        self.0.push((t, pkt(true, 0x02, 100, 0, &[])));
        self.0.push((t + ms, pkt(false, 0x12, 500, 101, &[])));
        self.0.push((t + 2 * ms, pkt(true, 0x10, 101, 501, &[])));
        self.0
            .push((t + 3 * ms, pkt(true, 0x18, 101, 501, payload)));
        let up = 101 + payload.len() as u32;
        if reply.is_empty() {
            self.0.push((t + 4 * ms, pkt(false, 0x10, 501, up, &[])));
        }
        let mut down = 501u32;
        for (i, part) in reply.chunks(seg.max(1)).enumerate() {
            let at = t + (4 + 2 * i as u64) * ms;
            self.0.push((at, pkt(false, 0x18, down, up, part)));
            down += part.len() as u32;
            self.0.push((at + ms, pkt(true, 0x10, up, down, &[])));
        }
    }

    fn write(mut self, name: &str) -> PathBuf {
        self.0.sort_by_key(|f| f.0);
        let path = std::env::temp_dir().join(format!(
            "wirespeed-learned-{name}-{}.pcap",
            std::process::id()
        ));
        let mut w = PcapWriter::new(std::fs::File::create(&path).unwrap(), 1, true).unwrap();
        for (t, f) in &self.0 {
            w.write(*t, f, f.len() as u32).unwrap();
        }
        w.finish().unwrap();
        path
    }
}

/// The records of `pcap` (sorted by first time and client port), with `workers` workers
/// (`reader`: through a reader thread), and the run's summary text.
fn run(cfg: &EngineConfig, pcap: &Path, workers: usize, reader: bool) -> (Vec<Value>, String) {
    let par = ParallelConfig {
        workers,
        reader_thread: reader,
        ..ParallelConfig::default()
    };
    let mut s = Session::new(
        cfg.clone(),
        par,
        |_| JsonLinesWriter::new(Vec::new(), false),
        false,
    );
    assert!(s.run_file(pcap, &mut |_, _| {}).unwrap().error.is_none());
    let (summary, sinks) = s.finish().unwrap();
    let out: Vec<u8> = sinks
        .into_iter()
        .flat_map(|w| w.into_inner().unwrap())
        .collect();
    let mut recs: Vec<Value> = String::from_utf8(out)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    for r in &mut recs {
        // Ids depend on the worker that held the flow, nothing else does.
        r.as_object_mut().unwrap().remove("flow_id");
    }
    recs.sort_by_key(|r| (r["first_ts"].to_string(), r["src_port"].as_u64()));
    (recs, summary.to_string())
}

fn by_port(recs: &[Value], port: u64) -> &Value {
    recs.iter()
        .find(|r| r["src_port"] == port)
        .unwrap_or_else(|| panic!("no flow from port {port}"))
}

/// Every way of running the file gives the same records.
fn same_everywhere(cfg: &EngineConfig, pcap: &Path) -> Vec<Value> {
    let (one, _) = run(cfg, pcap, 1, false);
    for (n, reader) in [(2, false), (3, false), (2, true)] {
        let (many, _) = run(cfg, pcap, n, reader);
        assert_eq!(one, many, "{n} workers, reader thread {reader}");
    }
    one
}

#[test]
fn a_dns_answer_names_later_connections_to_its_address_from_the_next_epoch() {
    let mut c = Cap(Vec::new());
    let t = T0 + S / 5;
    c.udp(
        t,
        (CLIENT, 5353),
        (RESOLVER, 53),
        &dns_query("www.youtube.com"),
    );
    c.udp(
        t + S / 100,
        (RESOLVER, 53),
        (CLIENT, 5353),
        &dns_response("www.youtube.com", "youtube-ui.l.google.com", SERVER),
    );
    // In the answer's epoch: not yet shared (epochs of 1 s).
    c.tcp(t + S / 2, 40001, (SERVER, 443), b"not a known protocol");
    // Later: named at packet 1, whatever it carries (a ClientHello without a name).
    c.tcp(t + 2 * S, 40002, (SERVER, 443), &client_hello(None));
    c.tcp(t + 3 * S, 40003, (SERVER, 80), b"\x00\x01opaque");
    // Another address: nothing learned about it.
    c.tcp(
        t + 3 * S,
        40004,
        ([203, 0, 113, 6], 443),
        &client_hello(None),
    );
    let pcap = c.write("dns");
    let cfg = EngineConfig::default();
    let recs = same_everywhere(&cfg, &pcap);
    let early = by_port(&recs, 40001);
    assert_ne!(early["fpc_method"], "dns-cache", "{early}");
    // The payload says TLS, the address says YouTube: TLS.YouTube, named at packet 1.
    let tls = by_port(&recs, 40002);
    assert_eq!(tls["fpc"], "YouTube", "{tls}");
    assert_eq!(tls["fpc_method"], "dns-cache", "{tls}");
    assert_eq!(tls["proto"], "TLS.YouTube", "{tls}");
    assert_eq!(tls["method"], "dns-cache", "{tls}");
    assert_eq!(tls["ttb_pkts"], 1, "{tls}");
    let other = by_port(&recs, 40003);
    assert_eq!(other["app"], "YouTube", "{other}");
    assert_eq!(other["method"], "dns-cache", "{other}");
    let stranger = by_port(&recs, 40004);
    assert_eq!(stranger["proto"], "TLS", "{stranger}");
    assert_eq!(stranger["method"], "dpi", "{stranger}");
    // Without the classifier, nothing is named by what DNS said.
    let off = EngineConfig {
        classifiers: wirespeed_classify::ClassifierSet::parse("port,ip,stats,dpi").unwrap(),
        ..Default::default()
    };
    let (recs, _) = run(&off, &pcap, 1, false);
    assert_eq!(by_port(&recs, 40002)["proto"], "TLS");
    std::fs::remove_file(pcap).ok();
}

/// A resolver's answer teaches whenever it comes in its flow: here the one that names YouTube
/// is the 26th packet of a client's exchange on one port pair, after twelve questions and answers
/// about a name no rule knows (the flow named DNS at its first packet, its first packets all
/// recorded: nothing else is left to do with its packets).
#[test]
fn a_dns_answer_late_in_its_flow_still_teaches() {
    let mut c = Cap(Vec::new());
    let t = T0 + S / 5;
    let ms = S / 1000;
    for i in 0..12u64 {
        let at = t + i * 10 * ms;
        c.udp(
            at,
            (CLIENT, 5353),
            (RESOLVER, 53),
            &dns_query("host.example"),
        );
        let answer = dns_response("host.example", "alias.example", [192, 0, 2, 77]);
        c.udp(at + ms, (RESOLVER, 53), (CLIENT, 5353), &answer);
    }
    let at = t + 130 * ms;
    c.udp(
        at,
        (CLIENT, 5353),
        (RESOLVER, 53),
        &dns_query("www.youtube.com"),
    );
    c.udp(
        at + ms,
        (RESOLVER, 53),
        (CLIENT, 5353),
        &dns_response("www.youtube.com", "youtube-ui.l.google.com", SERVER),
    );
    // Epochs later: named by what the 26th packet said.
    c.tcp(t + 3 * S, 40003, (SERVER, 80), b"\x00\x01opaque");
    let pcap = c.write("late-dns");
    let recs = same_everywhere(&EngineConfig::default(), &pcap);
    let dns = by_port(&recs, 5353);
    assert_eq!(
        dns["c2s_pkts"].as_u64().unwrap() + dns["s2c_pkts"].as_u64().unwrap(),
        26
    );
    let later = by_port(&recs, 40003);
    assert_eq!(later["app"], "YouTube", "{later}");
    assert_eq!(later["method"], "dns-cache", "{later}");
    std::fs::remove_file(pcap).ok();
}

/// Seed 002: three flows labelled by payload in one window make a rule at `U_th` 3; a flow to
/// the end-point a window later is labelled at packet 1, and payload inspection confirms it.
fn host_cache_capture(name: &str) -> PathBuf {
    let mut c = Cap(Vec::new());
    for i in 0..3u16 {
        c.tcp(
            T0 + S + u64::from(i) * S,
            41000 + i,
            (SERVER, 443),
            &client_hello(Some("www.youtube.com")),
        );
    }
    // A window (30 s) later: no name in it, and one to another port of the same server.
    c.tcp(T0 + 100 * S, 42000, (SERVER, 443), &client_hello(None));
    c.tcp(T0 + 100 * S, 42001, (SERVER, 8443), &client_hello(None));
    // The end-point now serves another name: the payload corrects the rule.
    c.tcp(
        T0 + 101 * S,
        42002,
        (SERVER, 443),
        &client_hello(Some("www.netflix.com")),
    );
    // A name of its own that no rule knows: the end-point's rule does not name it either.
    c.tcp(
        T0 + 102 * S,
        42003,
        (SERVER, 443),
        &client_hello(Some("intranet.example.org")),
    );
    c.write(name)
}

#[test]
fn the_host_cache_labels_a_known_end_point_at_packet_one_and_payload_confirms_it() {
    let pcap = host_cache_capture("hosts");
    let mut cfg = EngineConfig::default();
    cfg.learn.hosts.uth = 3;
    let recs = same_everywhere(&cfg, &pcap);
    for p in 41000..41003 {
        let r = by_port(&recs, p);
        assert_eq!(r["proto"], "TLS.YouTube", "{r}");
        assert_eq!(r["method"], "dpi", "{r}");
    }
    let hit = by_port(&recs, 42000);
    assert_eq!(hit["fpc"], "TLS.YouTube", "{hit}");
    assert_eq!(hit["fpc_method"], "host-cache", "{hit}");
    assert_eq!(hit["method"], "host-cache", "{hit}");
    assert_eq!(hit["ttb_pkts"], 1, "{hit}");
    assert_eq!(hit["ttb_us"], 0, "{hit}");
    let other_port = by_port(&recs, 42001);
    assert_ne!(other_port["fpc_method"], "host-cache", "{other_port}");
    assert_eq!(other_port["proto"], "TLS", "{other_port}");
    let corrected = by_port(&recs, 42002);
    assert_eq!(corrected["fpc_method"], "host-cache", "{corrected}");
    assert_eq!(corrected["proto"], "TLS.NetFlix", "{corrected}");
    assert_eq!(corrected["method"], "dpi", "{corrected}");
    let own = by_port(&recs, 42003);
    assert_eq!(own["fpc"], "TLS.YouTube", "{own}");
    assert_eq!(own["proto"], "TLS", "{own}");
    assert_eq!(own["method"], "dpi", "{own}");
    let (_, summary) = run(&cfg, &pcap, 1, false);
    assert!(
        summary.contains(
            "host-cache: 3 flows named at their first packet; payload inspection agreed on 1, named another on 2, said nothing on 0"
        ),
        "{summary}"
    );
    // One flow short of U_th: no rule. The Dedicated Port Table (seed 001) still knows what
    // the end-point served, the weakest hint: payload inspection's `TLS` takes its name.
    cfg.learn.hosts.uth = 4;
    let (recs, _) = run(&cfg, &pcap, 1, false);
    let hint = by_port(&recs, 42000);
    assert_eq!(hint["fpc_method"], "dpt", "{hint}");
    assert_eq!(hint["fpc"], "TLS.YouTube", "{hint}");
    assert_eq!(hint["proto"], "TLS.YouTube", "{hint}");
    assert_eq!(hint["method"], "dpi", "{hint}");
    // Without either, the flow waits for its payload, which names no service.
    cfg.classifiers =
        wirespeed_classify::ClassifierSet::parse("port,ip,dns-cache,host-cache,stats,dpi").unwrap();
    let (recs, _) = run(&cfg, &pcap, 1, false);
    let miss = by_port(&recs, 42000);
    assert_ne!(miss["fpc_method"], "host-cache", "{miss}");
    assert_eq!(miss["proto"], "TLS", "{miss}");
    std::fs::remove_file(pcap).ok();
}

#[test]
fn each_input_file_is_its_own_capture_for_what_it_teaches() {
    let pcap = host_cache_capture("files");
    let mut cfg = EngineConfig::default();
    cfg.learn.hosts.uth = 1;
    // The late flows alone, in a second file: the first file's rule does not carry over.
    let mut late = Cap(Vec::new());
    late.tcp(T0 + 100 * S, 42000, (SERVER, 443), &client_hello(None));
    let late = late.write("late");
    let par = ParallelConfig {
        workers: 1,
        ..ParallelConfig::default()
    };
    let mut s = Session::new(cfg, par, |_| JsonLinesWriter::new(Vec::new(), false), false);
    for p in [&pcap, &late] {
        assert!(s.run_file(p, &mut |_, _| {}).unwrap().error.is_none());
    }
    let (_, sinks) = s.finish().unwrap();
    let text = String::from_utf8(sinks.into_iter().next().unwrap().into_inner().unwrap()).unwrap();
    let last: Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    assert_eq!(last["src_port"], 42000);
    assert_eq!(last["proto"], "TLS", "{last}");
    assert_ne!(last["fpc_method"], "host-cache", "{last}");
    std::fs::remove_file(pcap).ok();
    std::fs::remove_file(late).ok();
}

/// An HTTP request of `len` bytes (RFC 9112 §3: request line, header fields, empty line).
fn http_request(len: usize) -> Vec<u8> {
    let mut r = b"GET /index.html HTTP/1.1\r\nHost: www.example.com\r\nX-Pad: ".to_vec();
    while r.len() + 4 < len {
        r.push(b'a');
    }
    r.extend_from_slice(b"\r\n\r\n");
    r
}

/// Issue 38 item 3 (`--learn-stats`): HTTP exchanges on port 443 (a request, an answer in
/// three segments), whose first payload-carrying packets the shipped model takes for TLS (the
/// port, a request of a ClientHello's size). Payload inspection names them HTTP; the link
/// model learns it at the epochs and its statistical verdict flips to HTTP after enough
/// labelled predecessors, the same with any number of workers. Without the option, the
/// verdict stays the prior's.
#[test]
fn the_link_model_learns_a_class_the_shipped_model_gets_wrong() {
    let mut c = Cap(Vec::new());
    let n = 60u16;
    let mut answer = b"HTTP/1.1 200 OK\r\nContent-Length: 2900\r\n\r\n".to_vec();
    answer.resize(3000, b'x');
    for i in 0..n {
        c.tcp_reply(
            T0 + u64::from(i) * S / 2,
            43000 + i,
            (SERVER, 443),
            &http_request(240 + usize::from(i % 8) * 4),
            &answer,
            1000,
        );
    }
    let pcap = c.write("stats");
    let stats = |recs: &[Value]| -> Vec<String> {
        (0..n)
            .map(|i| {
                let r = by_port(recs, u64::from(43000 + i));
                assert_eq!(r["app"], "HTTP", "payload inspection names it: {r}");
                r["stats_app"].as_str().unwrap().to_string()
            })
            .collect()
    };
    let off = stats(&run(&EngineConfig::default(), &pcap, 1, false).0);
    assert!(
        off.iter().all(|a| a != "HTTP"),
        "the shipped model must get these wrong for the test to mean anything: {off:?}"
    );
    let mut cfg = EngineConfig::default();
    cfg.learn.stats_weight = 16;
    let on = stats(&same_everywhere(&cfg, &pcap));
    // Prequential: the first flows are asked before anything was taught (the prior's answer).
    assert_eq!(on[..2], off[..2], "{on:?}");
    // The prior holds thousands of TLS flows to port 443: at weight 16 it takes a few dozen
    // HTTP flows (44 here) before the first flips, and a whole cycle of request sizes (8) more
    // before every size has.
    let first = on.iter().position(|a| a == "HTTP").expect("never learned");
    assert!(first > 1, "{on:?}");
    assert!(
        on[usize::from(n) - 8..].iter().all(|a| a == "HTTP"),
        "{on:?}"
    );
    std::fs::remove_file(pcap).ok();
}
