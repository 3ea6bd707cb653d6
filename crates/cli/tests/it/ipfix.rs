//! `--ipfix`, judged by real collectors and decoders: Debian's nfcapd receives the corpus's
//! records over UDP (paced at the issue's 1 M flows a minute) and nfdump prints them back with
//! the same 5-tuples, packets and bytes in both directions as the JSON records of the same run;
//! over TCP, every message is read by tshark's IPFIX dissector, which decodes every field of
//! every record, with application names and categories equal to the JSON's.

use std::collections::BTreeMap;
use std::io::Read;
use std::net::{TcpListener, UdpSocket};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::{bin, ok, temp, tools};

/// The JSON records of a run.
fn records(path: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// A multiset of keys.
fn counted<I: IntoIterator<Item = String>>(keys: I) -> BTreeMap<String, i64> {
    let mut m = BTreeMap::new();
    for k in keys {
        *m.entry(k).or_insert(0) += 1;
    }
    m
}

/// The keys found in only one of `a` and `b` (at most 20 of each), for the failure message.
fn differences(a: &BTreeMap<String, i64>, b: &BTreeMap<String, i64>) -> String {
    let mut out = String::new();
    let mut n = 0;
    for (k, v) in a {
        let w = b.get(k).copied().unwrap_or(0);
        if *v != w && n < 40 {
            out += &format!("  {k}: ours {v}, theirs {w}\n");
            n += 1;
        }
    }
    for (k, w) in b {
        if !a.contains_key(k) && n < 40 {
            out += &format!("  {k}: ours 0, theirs {w}\n");
            n += 1;
        }
    }
    out
}

fn flow_key(r: &serde_json::Value) -> String {
    let proto = r["ip_proto"].as_u64().unwrap();
    // ICMP's "ports" are type and code, which collectors keep in their own elements.
    let (sp, dp) = if proto == 1 || proto == 58 {
        (0, 0)
    } else {
        (
            r["src_port"].as_u64().unwrap(),
            r["dst_port"].as_u64().unwrap(),
        )
    };
    format!(
        "{proto} {} {sp} {} {dp} {} {} {} {}",
        r["src_ip"].as_str().unwrap(),
        r["dst_ip"].as_str().unwrap(),
        r["c2s_pkts"],
        r["c2s_bytes"],
        r["s2c_pkts"],
        r["s2c_bytes"]
    )
}

/// How long the test waits for an event before it fails: a failsafe against a hang, never a
/// measure of speed.
const FAILSAFE: Duration = Duration::from_secs(120);

/// The UDP socket bound to 127.0.0.1:`port`, as the kernel reports it (/proc/net/udp): the
/// bytes waiting in its receive queue, and the datagrams it dropped (queue full); None while no
/// socket is bound there.
fn udp_socket(port: u16) -> Option<(u64, u64)> {
    let table = std::fs::read_to_string("/proc/net/udp").ok()?;
    let local = format!("0100007F:{port:04X}");
    table.lines().skip(1).find_map(|l| {
        let f: Vec<&str> = l.split_whitespace().collect();
        if f.get(1) != Some(&local.as_str()) {
            return None;
        }
        let rx = u64::from_str_radix(f.get(4)?.split_once(':')?.1, 16).ok()?;
        Some((rx, f.last()?.parse().ok()?))
    })
}

/// Wait until `done` says yes (looking every 10 ms) while `child` runs.
fn wait_until(what: &str, child: &mut std::process::Child, mut done: impl FnMut() -> bool) {
    let t = Instant::now();
    while !done() {
        if let Some(st) = child.try_wait().unwrap() {
            panic!("{what}: the process ended first ({st})");
        }
        assert!(t.elapsed() < FAILSAFE, "not within {FAILSAFE:?}: {what}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn every_corpus_record_arrives_in_nfcapd_over_udp() {
    let Some(corpus) = wirespeed_testkit::corpus("ipfix_udp_nfcapd") else {
        return;
    };
    if !tools("ipfix_udp_nfcapd", &["nfcapd", "nfdump"]) {
        return;
    }
    let dir = temp("nfcapd");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let port = UdpSocket::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    // The collector at a real-time priority where the system allows it: a receiver that keeps up
    // whatever else the machine runs (a UDP socket drops what its queue cannot hold).
    let rt = Command::new("chrt")
        .args(["-f", "10", "true"])
        .output()
        .is_ok_and(|o| o.status.success());
    let (prog, pre): (&str, &[&str]) = if rt {
        ("chrt", &["-f", "10", "nfcapd"])
    } else {
        ("nfcapd", &[])
    };
    let mut nfcapd = Command::new(prog)
        .args(pre)
        .args([
            "-b",
            "127.0.0.1",
            "-p",
            &port.to_string(),
            "-B",
            "4000000",
            "-w",
        ])
        .arg(&dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // It listens once its socket is bound (the test's own probe socket above is closed).
    wait_until("nfcapd binds its port", &mut nfcapd, || {
        udp_socket(port).is_some()
    });
    let json = temp("ipfix-udp.jsonl");
    // 1 M flows a minute.
    let target = format!("udp://127.0.0.1:{port}?rate=16667");
    let run = bin()
        .args(["classify", "--ipfix", &target, "-o"])
        .arg(&json)
        .arg(corpus.pcap_dir())
        .output()
        .unwrap();
    // Exit 1: a damaged capture of the corpus; its good packets still count.
    assert!(run.status.code().is_some_and(|c| c <= 1), "{run:?}");
    let summary = String::from_utf8_lossy(&run.stderr).into_owned();
    // Every datagram taken from the socket (nfcapd processes what it took before it exits).
    wait_until("nfcapd reads every datagram", &mut nfcapd, || {
        udp_socket(port).is_some_and(|(queued, _)| queued == 0)
    });
    let kernel_drops = udp_socket(port).map_or(0, |s| s.1);
    // SIGTERM: nfcapd writes its file and exits.
    ok(Command::new("kill").args(["-TERM", &nfcapd.id().to_string()]));
    let st = nfcapd.wait().unwrap();
    let mut log = String::new();
    nfcapd
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut log)
        .unwrap();
    assert!(st.success(), "nfcapd: {log}");
    let ours = records(&json);
    assert!(ours.len() > 5000, "{} records", ours.len());
    let dump = ok(Command::new("nfdump").args([
        "-R",
        dir.to_str().unwrap(),
        "-q",
        "-N",
        "-6",
        "-o",
        "fmt:%pr|%sa|%sp|%da|%dp|%ipkt|%ibyt|%opkt|%obyt|%nbid",
    ]));
    let text = String::from_utf8_lossy(&dump.stdout);
    // nfdump's application id of each flow, by the flow's key.
    let mut their_app: BTreeMap<String, String> = BTreeMap::new();
    let theirs: Vec<String> = text
        .lines()
        .filter(|l| l.contains('|'))
        .map(|l| {
            let f: Vec<&str> = l.split('|').map(str::trim).collect();
            let proto = match f[0] {
                "TCP" => 6,
                "UDP" => 17,
                "ICMP" => 1,
                "ICMP6" => 58,
                p => p.parse().unwrap_or_else(|_| panic!("protocol {p} in {l}")),
            };
            let (sp, dp) = if proto == 1 || proto == 58 {
                ("0", "0")
            } else {
                (f[2], f[4])
            };
            let addr = |a: &str| a.parse::<std::net::IpAddr>().unwrap().to_string();
            let k = format!(
                "{proto} {} {sp} {} {dp} {} {} {} {}",
                addr(f[1]),
                addr(f[3]),
                f[5],
                f[6],
                f[7],
                f[8]
            );
            their_app.insert(k.clone(), f[9].to_string());
            k
        })
        .collect();
    let (a, b) = (counted(ours.iter().map(flow_key)), counted(theirs));
    assert_eq!(
        ours.len(),
        b.values().sum::<i64>() as usize,
        "records: ours {}, nfdump's {} ({kernel_drops} datagrams dropped by nfcapd's full \
         socket)\n{}\nnfcapd: {log}\nours: {summary}",
        ours.len(),
        b.values().sum::<i64>(),
        differences(&a, &b)
    );
    assert!(a == b, "records that differ:\n{}", differences(&a, &b));
    // The application arrived: nfdump 1.7.1 prints applicationId as its NBAR id (in its own
    // byte order), so compare the partition, not the text: flows of one label share one id,
    // and different labels have different ids.
    let mut id_of: BTreeMap<String, String> = BTreeMap::new();
    let mut label_of: BTreeMap<String, String> = BTreeMap::new();
    for r in &ours {
        let label = format!("{}/{}/{}", r["master"], r["app"], r["category"]);
        let id = &their_app[&flow_key(r)];
        assert!(
            !id.is_empty(),
            "no application id in nfdump for {}",
            flow_key(r)
        );
        let seen = id_of.entry(label.clone()).or_insert_with(|| id.clone());
        assert_eq!(seen, id, "label {label}: two application ids in nfdump");
        let back = label_of.entry(id.clone()).or_insert_with(|| label.clone());
        assert_eq!(back, &label, "application id {id}: two labels");
    }
    assert!(id_of.len() > 50, "{} labels", id_of.len());
}

/// A pcap of `msgs`, each in a UDP datagram to port 4739 (IPFIX's), for tshark.
fn pcap_of(msgs: &[&[u8]]) -> Vec<u8> {
    let mut p = Vec::new();
    for w in [0xa1b2_c3d4u32, 0x0004_0002, 0, 0, 65535, 1] {
        p.extend_from_slice(&w.to_le_bytes());
    }
    // The version words are two u16s: 2, 4 (little-endian).
    p[4..8].copy_from_slice(&[2, 0, 4, 0]);
    for (i, m) in msgs.iter().enumerate() {
        let udp_len = 8 + m.len();
        let ip_len = 20 + udp_len;
        let mut f = vec![0u8; 12];
        f.extend_from_slice(&[0x08, 0x00]);
        f.extend_from_slice(&[0x45, 0]);
        f.extend_from_slice(&(ip_len as u16).to_be_bytes());
        f.extend_from_slice(&[0, 0, 0, 0, 64, 17, 0, 0, 127, 0, 0, 1, 127, 0, 0, 1]);
        f.extend_from_slice(&40000u16.to_be_bytes());
        f.extend_from_slice(&4739u16.to_be_bytes());
        f.extend_from_slice(&(udp_len as u16).to_be_bytes());
        f.extend_from_slice(&[0, 0]);
        f.extend_from_slice(m);
        for w in [i as u32, 0, f.len() as u32, f.len() as u32] {
            p.extend_from_slice(&w.to_le_bytes());
        }
        p.extend_from_slice(&f);
    }
    p
}

/// Every object of tshark's JSON tree named "Flow N" that holds a flow's addresses.
fn tshark_flows(v: &serde_json::Value, out: &mut Vec<serde_json::Map<String, serde_json::Value>>) {
    match v {
        serde_json::Value::Object(m) => {
            for (k, x) in m {
                if let (true, Some(o)) = (k.starts_with("Flow "), x.as_object()) {
                    if o.contains_key("cflow.srcaddr") || o.contains_key("cflow.srcaddrv6") {
                        out.push(o.clone());
                        continue;
                    }
                }
                tshark_flows(x, out);
            }
        }
        serde_json::Value::Array(a) => a.iter().for_each(|x| tshark_flows(x, out)),
        _ => {}
    }
}

#[test]
fn every_field_of_the_tcp_stream_decodes_in_tshark() {
    let Some(corpus) = wirespeed_testkit::corpus("ipfix_tcp_tshark") else {
        return;
    };
    if !tools("ipfix_tcp_tshark", &["tshark"]) {
        return;
    }
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = l.local_addr().unwrap();
    let reader = std::thread::spawn(move || {
        let (mut s, _) = l.accept().unwrap();
        let mut b = Vec::new();
        s.read_to_end(&mut b).unwrap();
        b
    });
    let json = temp("ipfix-tcp.jsonl");
    // mtu: messages small enough for one datagram each in the pcap tshark reads.
    let target = format!("tcp://{addr}?mtu=8000");
    let run = bin()
        .args(["classify", "-q", "--ipfix", &target, "-o"])
        .arg(&json)
        .arg(corpus.pcap_dir())
        .output()
        .unwrap();
    assert!(run.status.code().is_some_and(|c| c <= 1), "{run:?}");
    let stream = reader.join().unwrap();
    let mut msgs = Vec::new();
    let mut at = 0;
    while at < stream.len() {
        let len = usize::from(u16::from_be_bytes([stream[at + 2], stream[at + 3]]));
        assert!(
            len >= 16 && at + len <= stream.len(),
            "message framing at {at}"
        );
        msgs.push(&stream[at..at + len]);
        at += len;
    }
    let pcap = temp("ipfix-tcp.pcap");
    std::fs::write(&pcap, pcap_of(&msgs)).unwrap();
    let decode = |extra: &[&str]| {
        ok(Command::new("tshark")
            .args(["-n", "-r"])
            .arg(&pcap)
            .args(["-d", "udp.port==4739,cflow"])
            .args(extra))
        .stdout
    };
    // No malformed message, no expert warning.
    let bad = decode(&["-Y", "_ws.malformed || _ws.expert.severity >= warning"]);
    assert!(bad.is_empty(), "{}", String::from_utf8_lossy(&bad));
    let tree: serde_json::Value =
        serde_json::from_slice(&decode(&["-T", "json", "--no-duplicate-keys"])).unwrap();
    let mut flows = Vec::new();
    tshark_flows(&tree, &mut flows);
    let ours = records(&json);
    let s = |o: &serde_json::Map<String, serde_json::Value>, k: &str| -> String {
        match o.get(k) {
            Some(serde_json::Value::String(s)) => s.clone(),
            Some(serde_json::Value::Array(a)) => a
                .iter()
                .map(|x| x.as_str().unwrap_or("").to_string())
                .collect::<Vec<_>>()
                .join(","),
            _ => String::new(),
        }
    };
    let theirs = flows.iter().map(|o| {
        let v6 = o.contains_key("cflow.srcaddrv6");
        let (sa, da) = if v6 {
            (s(o, "cflow.srcaddrv6"), s(o, "cflow.dstaddrv6"))
        } else {
            (s(o, "cflow.srcaddr"), s(o, "cflow.dstaddr"))
        };
        format!(
            "{} {sa} {} {da} {} [{}] [{}] {} {} {}",
            s(o, "cflow.protocol"),
            s(o, "cflow.srcport"),
            s(o, "cflow.dstport"),
            s(o, "cflow.packets"),
            s(o, "cflow.octets"),
            s(o, "cflow.flow_id"),
            s(o, "cflow.appl_name"),
            s(o, "cflow.application_category_name")
        )
    });
    let mine = ours.iter().map(|r| {
        format!(
            "{} {} {} {} {} [{},{}] [{},{}] {} {} {}",
            r["ip_proto"],
            r["src_ip"].as_str().unwrap(),
            r["src_port"],
            r["dst_ip"].as_str().unwrap(),
            r["dst_port"],
            r["c2s_pkts"],
            r["s2c_pkts"],
            r["c2s_bytes"],
            r["s2c_bytes"],
            r["flow_id"],
            r["app"].as_str().unwrap(),
            r["category"].as_str().unwrap()
        )
    });
    let (a, b) = (counted(mine), counted(theirs));
    assert_eq!(
        a.values().sum::<i64>(),
        b.values().sum::<i64>(),
        "{}",
        differences(&a, &b)
    );
    assert!(a == b, "records that differ:\n{}", differences(&a, &b));
}
