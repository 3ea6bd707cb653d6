//! Instructions a record of the JSON and CSV writers, counted by callgrind (deterministic, unlike
//! the timed `benches/records.rs`): a pool of corpus-like records (IPv4 and IPv6; TCP, UDP and
//! ICMP; labels by DPI, port and model; metadata absent, TLS, DNS and HTTP) written `N` times into
//! a sink that discards the bytes. Only [`write_records`] is counted:
//!
//! ```sh
//! cargo build --release -p wirespeed-export --example record_instrs
//! valgrind --tool=callgrind --callgrind-out-file=/dev/null \
//!     --toggle-collect='record_instrs::write_records*' \
//!     target/release/examples/record_instrs json all 100000
//! ```
//!
//! Instructions a record: callgrind's total (`Collected`) divided by `N`. Arguments: `json` or
//! `csv`; `default` (no optional column) or `all` (every optional column: features, Community
//! ID, inline action, distributions, TCP analysis, tunnel parent); the number of records;
//! optionally, the kinds of record kept (digits: 0 UDP with a model label, 1 and 2 TLS, 3 HTTP,
//! 4 ICMP, 5 DNS over IPv6).

use std::hint::black_box;
use std::io;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use wirespeed_classify::{Labels, Method};
use wirespeed_export::{
    ActFields, Columns, CsvWriter, DirDist, DirTcp, DistFields, FlowRecord, JsonLinesWriter,
    RecordSink, TcpFields, META_COUNT, META_FIELDS,
};
use wirespeed_flow::EndReason;
use wirespeed_risk::RiskSet;

fn meta_at(name: &str) -> usize {
    META_FIELDS.iter().position(|f| *f == name).unwrap_or(0)
}

/// Sixty-four records of six kinds, with varied addresses, ports, times and counters.
fn records(labels: &Labels, all: bool) -> Vec<FlowRecord<'_>> {
    let id = |m: &str, a: &str, c: &str| labels.find(m, a, c).unwrap_or_default();
    let (google, stun, dns, http) = (
        id("TLS", "Google", "Web"),
        id("STUN", "STUN", "Network"),
        id("DNS", "DNS", "Network"),
        id("HTTP", "HTTP", "Web"),
    );
    let mut s = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    (0..64u32)
        .map(|i| {
            let r = next();
            let kind = i % 6;
            let v4 = |base: u32| IpAddr::V4(Ipv4Addr::from(base | (r as u32 & 0xffff)));
            let v6 = |x: u16| IpAddr::V6(Ipv6Addr::new(0x2001, 0xdb8, 0, x, 0, 0, 0, 1));
            let mut meta = [""; META_COUNT];
            let mut early = wirespeed_stats::Early::default();
            let (l4, tcp) = match kind {
                0 | 5 => (17, false),
                4 => (1, false),
                _ => (6, true),
            };
            for p in 0..(1 + r % 5) {
                let s2c = p % 2 == 1;
                let fl = if tcp {
                    [0x02, 0x12, 0x10, 0x18, 0x18][p as usize]
                } else {
                    0
                };
                early.push(
                    s2c,
                    60 + (r >> p) as u16 % 1400,
                    (r >> (p + 8)) as u32 % 1300,
                    fl,
                    1000 * p,
                );
            }
            let (label, method, stats_app) = match kind {
                0 => (stun, Some(Method::Stats), "STUN"),
                1 | 2 => {
                    meta[meta_at("sni")] = "www.example-cdn.net";
                    meta[meta_at("alpn")] = "h2,http/1.1";
                    meta[meta_at("tls_version")] = "TLSv1.3";
                    meta[meta_at("ja3c")] = "cd08e31494f9531f560d64c695473da9";
                    meta[meta_at("ja4")] = "t13d1516h2_8daaf6152771_02713d6af862";
                    meta[meta_at("tls_cipher")] = "4865";
                    (google, Some(Method::Dpi), "TLS")
                }
                3 => {
                    meta[meta_at("http_method")] = "GET";
                    meta[meta_at("http_host")] = "example.org";
                    meta[meta_at("url")] = "/index.html?q=\"a\"";
                    meta[meta_at("user_agent")] = "Mozilla/5.0 (X11; Linux x86_64)";
                    meta[meta_at("http_status")] = "200";
                    (http, Some(Method::Dpi), "HTTP")
                }
                4 => (Default::default(), None, ""),
                _ => {
                    meta[meta_at("dns_query")] = "a.example.com";
                    meta[meta_at("dns_qtype")] = "28";
                    meta[meta_at("dns_rcode")] = "0";
                    meta[meta_at("dns_names")] = "a.example.com,b.example.com";
                    (dns, Some(Method::Dpi), "DNS")
                }
            };
            let dir = |k: u64| DirDist {
                packets: k,
                size_min: 60,
                size_mean: 512.25 + (r % 1000) as f64 / 7.0,
                size_max: 1500,
                size_std: 300.125,
                gaps: k.saturating_sub(1),
                gap_min_us: 12.0,
                gap_mean_us: 2500.5,
                gap_max_us: 100_000.0,
                gap_std_us: (r % 77_777) as f64 / 3.0,
                flags: [1, 1, 0, 3, k as u32, 0, 0, 0],
            };
            let dtcp = |n: u32| DirTcp {
                retrans: n % 3,
                retrans_bytes: 100 * u64::from(n % 3),
                rtt_n: n,
                rtt_min_us: 900,
                rtt_mean_us: 1234.5,
                rtt_max_us: 20_000,
                rtt_std_us: 333.333,
                ttl: Some((64, 64)),
                mss: Some(1460),
                wscale: Some(7),
                sack_ok: Some(true),
                ts_ok: Some(false),
                win_init: Some(64240),
                unique_bytes: (r >> 20) % 1_000_000,
                first_payload_us: Some(1000),
                last_payload_us: Some(900_000),
                ..DirTcp::default()
            };
            FlowRecord {
                source: None,
                pcap: None,
                flow_id: u64::from(i) * 7919,
                src_ip: if kind == 5 {
                    v6(i as u16)
                } else {
                    v4(0x0a00_0000)
                },
                src_port: if kind == 4 {
                    0
                } else {
                    1024 + (r >> 16) as u16 % 60000
                },
                dst_ip: if kind == 5 {
                    v6(0xff)
                } else {
                    IpAddr::V4(Ipv4Addr::from(0xac10_0000 | i))
                },
                dst_port: [3478, 443, 443, 80, 0, 53][kind as usize],
                l4,
                vlan: if i % 8 == 0 { 100 } else { 0 },
                tunnel: if i % 16 == 0 { "GTP" } else { "" },
                tunnel_parent: (i % 16 == 0).then_some(3),
                first_ts_ns: 1_700_000_000_000_000_000 + (r >> 20) % 1_000_000_000_000,
                last_ts_ns: 1_700_000_001_000_000_000 + (r >> 24) % 1_000_000_000_000,
                c2s_pkts: 3 + (r >> 40) % 100,
                c2s_bytes: 180 + (r >> 30) % 100_000,
                s2c_pkts: 2 + (r >> 44) % 100,
                s2c_bytes: 120 + (r >> 34) % 1_000_000,
                end_reason: [EndReason::EndOfInput, EndReason::Fin, EndReason::Idle]
                    [i as usize % 3],
                label,
                labels,
                ip_owner: if i % 4 == 0 { "Google" } else { "" },
                method,
                confidence: (r % 101) as f32 / 100.0,
                ttb_pkts: 4,
                ttb_us: (r >> 12) % 100_000,
                fpc: (kind != 4).then_some((label, Method::Port)),
                early,
                stats_app,
                stats_class: if stats_app.is_empty() { "" } else { "WEB" },
                stats_score: 0.82,
                meta,
                act: (all && i % 2 == 0).then_some(ActFields {
                    rule: "default",
                    action: "forward",
                    dropped_pkts: 0,
                    dropped_bytes: 0,
                    bound: false,
                }),
                dist: all.then(|| DistFields {
                    c2s: dir(3 + r % 9),
                    s2c: dir(r % 3),
                }),
                tcp: (all && tcp).then(|| TcpFields {
                    c2s: dtcp(2),
                    s2c: dtcp((r % 2) as u32),
                    hs_rtt_us: Some(10_500),
                    close: "client_fin",
                    history: *b"ShADadFf\0\0\0\0\0\0\0\0\0\0\0\0",
                    history_len: 8,
                    conn_state: "SF",
                }),
                risks: if i % 5 == 0 {
                    RiskSet::parse("Known Proto on Non Std Port").unwrap_or_default()
                } else {
                    RiskSet::default()
                },
                encrypted: kind == 1 || kind == 2,
            }
        })
        .collect()
}

/// The counted part: `n` records through the writer.
#[inline(never)]
fn write_records(w: &mut dyn RecordSink, recs: &[FlowRecord<'_>], n: usize) -> io::Result<()> {
    for i in 0..n {
        w.write(black_box(&recs[i % recs.len()]))?;
    }
    w.finish()
}

fn main() -> io::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let usage = "usage: record_instrs json|csv default|all N";
    let (Some(format), Some(cols), Some(n)) = (args.get(1), args.get(2), args.get(3)) else {
        return Err(io::Error::other(usage));
    };
    let n: usize = n.parse().map_err(|_| io::Error::other(usage))?;
    let all = cols == "all";
    let mut labels = Labels::new();
    for (m, a, c) in [
        ("TLS", "Google", "Web"),
        ("STUN", "STUN", "Network"),
        ("DNS", "DNS", "Network"),
        ("HTTP", "HTTP", "Web"),
    ] {
        labels
            .intern(m, a, c, Default::default())
            .map_err(|e| io::Error::other(format!("{e:?}")))?;
    }
    let mut recs = records(&labels, all);
    // A fifth argument keeps the records of these kinds only (digits 0 to 5, `records`' order).
    if let Some(kinds) = args.get(4) {
        recs.retain(|r| kinds.contains(char::from(b'0' + (r.flow_id / 7919 % 6) as u8)));
    }
    let c = Columns {
        with_source: false,
        features: all,
        community: all,
        action: all,
        dist: all,
        tcp: all,
        tunnel_parent: all,
        keep: None,
    };
    let mut w: Box<dyn RecordSink> = match format.as_str() {
        "json" => Box::new(JsonLinesWriter::new(io::sink(), false).with_columns(c)),
        "csv" => Box::new(CsvWriter::new(io::sink(), false).with_columns(c)),
        _ => return Err(io::Error::other(usage)),
    };
    write_records(&mut *w, &recs, n)
}
