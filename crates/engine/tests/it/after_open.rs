//! What flows become after their first packets (issue 20, item 3), on traffic real
//! implementations made: `tests/data/netcap/*.pcap`, captured by `scripts/netcap/netcap.py`
//! between two network namespaces (the scenario of each is in `scripts/netcap/scenarios.py`:
//! pyftpdlib and ftplib, dovecot with imaplib and poplib, aiosmtpd and smtplib, Prosody with
//! slixmpp, Linux TCP Fast Open, dnsmasq, python3-websockets, nghttp2).
//!
//! The names the records must hold (SNI, HTTP host, DNS names) are what tshark 4.0.17 showed for
//! those captures; where tshark is installed the test asks it again, so the expected values
//! cannot drift from its reading. Every capture is also run with 2 and 3 workers (sharing one
//! scan of the file, and fed by a reader thread): the records must be the same as with one.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use wirespeed_engine::{run_file, EngineConfig, ParallelConfig, Pool, Worker};
use wirespeed_export::JsonLinesWriter;

fn capture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/netcap")
        .join(name)
}

/// The records, without their worker-given `flow_id`, sorted (each worker writes its own).
fn sorted(bufs: Vec<Vec<u8>>) -> Vec<String> {
    let mut v: Vec<String> = bufs
        .into_iter()
        .flat_map(|b| {
            String::from_utf8(b)
                .unwrap()
                .lines()
                .map(|l| {
                    let mut r: Value = serde_json::from_str(l).unwrap();
                    r.as_object_mut().unwrap().remove("flow_id");
                    r.to_string()
                })
                .collect::<Vec<_>>()
        })
        .collect();
    v.sort();
    v
}

/// The records of `pcap` with one worker, checked equal to those of 2 and 3 workers.
fn records(pcap: &Path) -> Vec<Value> {
    let mut w = Worker::new(
        EngineConfig::default(),
        JsonLinesWriter::new(Vec::new(), false),
        false,
    );
    run_file(&mut w, pcap, &mut |_, _| {}).unwrap();
    let one = sorted(vec![w.finish().unwrap().into_inner().unwrap()]);
    for (workers, reader_thread) in [(2, false), (3, false), (2, true), (3, true)] {
        let par = ParallelConfig {
            workers,
            pin: false,
            buffer_mb: 1,
            reader_thread,
        };
        let mut p = Pool::new(
            EngineConfig::default(),
            par,
            |_| JsonLinesWriter::new(Vec::new(), false),
            false,
        );
        p.run_file(pcap, &mut |_, _| {}).unwrap();
        let bufs = p
            .finish()
            .unwrap()
            .into_iter()
            .map(|s| s.into_inner().unwrap())
            .collect();
        let many = sorted(bufs);
        assert_eq!(
            many.len(),
            one.len(),
            "{}: {workers} workers",
            pcap.display()
        );
        for (a, b) in one.iter().zip(&many) {
            assert_eq!(
                a,
                b,
                "{}: {workers} workers (reader thread: {reader_thread})",
                pcap.display()
            );
        }
    }
    one.iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .filter(|r: &Value| r["l4"] == "TCP" || r["l4"] == "UDP")
        .collect()
}

/// The record of the flow whose server port is `port` (and client port `client`, if given).
fn flow(recs: &[Value], port: u64, client: Option<u64>) -> &Value {
    recs.iter()
        .find(|r| r["dst_port"] == port && client.is_none_or(|c| r["src_port"] == c))
        .unwrap_or_else(|| panic!("no flow to port {port}: {recs:#?}"))
}

/// tshark's values of `field` in `pcap` (distinct, in order), or None without tshark.
fn tshark(pcap: &Path, filter: &str, field: &str) -> Option<Vec<String>> {
    let out = Command::new("tshark")
        .args(["-r"])
        .arg(pcap)
        .args(["-Y", filter, "-T", "fields", "-e", field])
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let mut v: Vec<String> = Vec::new();
    for l in String::from_utf8_lossy(&out.stdout).lines() {
        if !l.is_empty() && !v.iter().any(|x| x == l) {
            v.push(l.to_string());
        }
    }
    Some(v)
}

/// tshark agrees with the expected values (skipped, saying so, without tshark).
fn tshark_says(pcap: &Path, filter: &str, field: &str, want: &[&str]) {
    match tshark(pcap, filter, field) {
        Some(v) => assert_eq!(v, want, "tshark's {field} in {}", pcap.display()),
        None => wirespeed_testkit::skip(
            "after_open",
            &format!("tshark not installed; {field} not re-read"),
        ),
    }
}

#[test]
fn ftp_data_connections_are_named_by_their_control_connection() {
    let pcap = capture("ftp.pcap");
    let recs = records(&pcap);
    // The plain session's control connection and its four data connections: PASV (LIST),
    // EPSV (RETR), PORT (NLST) and EPRT (RETR); tshark reads the announcements.
    tshark_says(
        &pcap,
        "ftp.response.code==227 || ftp.response.code==229",
        "ftp.response.arg",
        &[
            "Entering passive mode (192,0,2,2,195,135).",
            "Entering extended passive mode (|||50016|).",
        ],
    );
    tshark_says(
        &pcap,
        "ftp.request.command==\"PORT\" || ftp.request.command==\"EPRT\"",
        "ftp.request.arg",
        &["192,0,2,1,142,47", "|1|192.0.2.1|34319|"],
    );
    assert_eq!(flow(&recs, 21, Some(45868))["master"], "FTP_CONTROL");
    for port in [50055, 50016, 36399, 34319] {
        let r = flow(&recs, port, None);
        assert_eq!(r["master"], "FTP_DATA", "{r}");
        assert_eq!(r["method"], "dpi", "{r}");
    }
    // The second session upgrades with AUTH TLS: FTPS, with the TLS handshake's SNI.
    tshark_says(
        &pcap,
        "tcp.port==21 && tls.handshake.type==1",
        "tls.handshake.extensions_server_name",
        &["ftp.example.org"],
    );
    let s = flow(&recs, 21, Some(45870));
    assert_eq!(
        (&s["master"], &s["sni"]),
        (&"FTPS".into(), &"ftp.example.org".into())
    );
    // Its data connection is protected (PROT P): announced inside TLS, which no one reads; its
    // own payload says TLS.
    assert_eq!(flow(&recs, 50063, None)["master"], "TLS");
}

#[test]
fn starttls_sessions_are_named_as_ndpi_does_with_their_tls_metadata() {
    // The three clients (Python's imaplib, poplib, smtplib on OpenSSL 3) offer the same hello:
    // tshark's JA3 of it.
    let ja3 = "d39e1be3241d516b1f714bd47c2bc968";
    for (pcap, port, master) in [
        ("mail.pcap", 143, "IMAPS"),
        ("mail.pcap", 110, "POPS"),
        ("smtp.pcap", 25, "SMTPS"),
    ] {
        let pcap = capture(pcap);
        let hello = format!("tcp.dstport=={port} && tls.handshake.type==1");
        tshark_says(
            &pcap,
            &hello,
            "tls.handshake.extensions_server_name",
            &["mail.example.org"],
        );
        tshark_says(&pcap, &hello, "tls.handshake.ja3", &[ja3]);
        let recs = records(&pcap);
        let r = flow(&recs, port, None);
        assert_eq!(r["master"], master, "{r}");
        assert_eq!(r["sni"], "mail.example.org", "{r}");
        assert_eq!(r["ja3c"], ja3, "{r}");
        assert!(r["ja4"].as_str().is_some_and(|j| j.starts_with('t')), "{r}");
    }
    // XMPP (Prosody 0.12, slixmpp): the stream upgrades with <starttls/> and <proceed/>; the
    // flow stays Jabber, as nDPI names it, with the TLS hello's fingerprints (slixmpp sends no
    // SNI, and tshark shows none either).
    let pcap = capture("xmpp.pcap");
    let hello = "tcp.dstport==5222 && tls.handshake.type==1";
    tshark_says(
        &pcap,
        hello,
        "tls.handshake.ja3",
        &["c12b4ccd5320bbb380ca1a9df90f771d"],
    );
    tshark_says(&pcap, hello, "tls.handshake.extensions_server_name", &[]);
    let recs = records(&pcap);
    let r = flow(&recs, 5222, None);
    assert_eq!(r["master"], "Jabber", "{r}");
    assert_eq!(r["ja3c"], "c12b4ccd5320bbb380ca1a9df90f771d", "{r}");
    assert!(r["sni"].is_null(), "{r}");
}

#[test]
fn a_tcp_fast_open_syn_is_inspected() {
    let pcap = capture("tfo.pcap");
    // tshark: the second connection's SYN carries a cookie and the request (83 bytes).
    tshark_says(
        &pcap,
        "tcp.flags.syn==1 && tcp.flags.ack==0 && tcp.len>0",
        "http.host",
        &["tfo.example.org"],
    );
    let recs = records(&pcap);
    let named: Vec<&Value> = recs.iter().filter(|r| r["dst_port"] == 80).collect();
    assert_eq!(named.len(), 2);
    for r in &named {
        assert_eq!(
            (&r["master"], &r["http_host"]),
            (&"HTTP".into(), &"tfo.example.org".into())
        );
    }
    // The connection whose SYN held the request is named at its first packet.
    assert!(named.iter().any(|r| r["ttb_pkts"] == 1), "{named:#?}");
}

#[test]
fn every_query_name_of_a_five_tuple_is_listed() {
    let pcap = capture("dns.pcap");
    let names = ["www.example.org", "mail.example.org", "cdn.example.net"];
    tshark_says(&pcap, "dns.flags.response==0", "dns.qry.name", &names);
    let recs = records(&pcap);
    let r = flow(&recs, 53, Some(40053));
    assert_eq!(r["dns_query"], names[0], "{r}");
    assert_eq!(r["dns_names"], names.join(","), "{r}");
}

#[test]
fn upgrades_and_http2_prior_knowledge() {
    let pcap = capture("websocket.pcap");
    tshark_says(
        &pcap,
        "http.response.code==101",
        "http.upgrade",
        &["websocket"],
    );
    let recs = records(&pcap);
    let r = flow(&recs, 8765, None);
    // nDPI names the upgraded connection HTTP; the record says what it switched to.
    assert_eq!(
        (&r["master"], &r["http_status"], &r["http_upgrade"]),
        (&"HTTP".into(), &101.into(), &"websocket".into()),
        "{r}"
    );
    let pcap = capture("h2.pcap");
    tshark_says(
        &pcap,
        "http2.type==1",
        "http2.headers.path",
        &["/index.html"],
    );
    let recs = records(&pcap);
    assert_eq!(flow(&recs, 8080, None)["master"], "HTTP2");
}
