//! Microbenchmark of the record writers (no framework: a timed loop, best of 5 runs, timed by
//! the thread's CPU time so a busy shared machine inflates the figures less): nanoseconds to
//! format one flow record as a JSON line, as a CSV row and as an IPFIX data record, into a sink
//! that discards the bytes; with `--features parquet`, also as a Parquet row (builders, and the
//! row groups encoded and compressed).
//! `cargo bench -p wirespeed-export [--features parquet]`.
//!
//! Records: the worst case's (IPv4, UDP, label from the model, no metadata) and a TLS flow with
//! SNI, ALPN, versions, JA3 and JA4 set (the corpus's most common labelled kind), 1,024 of each
//! with varied addresses, ports, times and counters, read through `black_box`.

use std::hint::black_box;
use std::io;
use std::net::{IpAddr, Ipv4Addr};
use wirespeed_classify::{Labels, Method};
use wirespeed_export::{CsvWriter, FlowRecord, JsonLinesWriter, RecordSink, META_COUNT};
use wirespeed_flow::EndReason;

fn thread_cpu_ns() -> u64 {
    // /proc/thread-self/schedstat: run time (ns) first; wall clock where it is missing.
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos() as u64)
        })
}

fn records(tls: bool, labels: &Labels) -> Vec<FlowRecord<'_>> {
    let google = labels.find("TLS", "Google", "Web").unwrap_or_default();
    let stun = labels.find("STUN", "STUN", "Network").unwrap_or_default();
    let mut s = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    (0..1024u32)
        .map(|i| {
            let r = next();
            let mut meta = [""; META_COUNT];
            if tls {
                meta[0] = "www.example-cdn.net";
                meta[1] = "h2,http/1.1";
                meta[2] = "TLSv1.3";
                meta[3] = "cd08e31494f9531f560d64c695473da9";
                meta[4] = "t13d1516h2_8daaf6152771_02713d6af862";
            }
            FlowRecord {
                source: None,
                pcap: None,
                flow_id: i as u64,
                ip_owner: "",
                src_ip: IpAddr::V4(Ipv4Addr::from(0x0a00_0000 | (r as u32 & 0xffff))),
                src_port: 1024 + (r >> 16) as u16 % 60000,
                dst_ip: IpAddr::V4(Ipv4Addr::from(0xac10_0000 | i)),
                dst_port: if tls { 443 } else { (r >> 32) as u16 },
                l4: if tls { 6 } else { 17 },
                vlan: 0,
                tunnel: "",
                tunnel_parent: None,
                first_ts_ns: 1_700_000_000_000_000_000 + (r >> 20) % 1_000_000_000_000,
                last_ts_ns: 1_700_000_001_000_000_000 + (r >> 24) % 1_000_000_000_000,
                c2s_pkts: 3 + (r >> 40) % 100,
                c2s_bytes: 180 + (r >> 30) % 100_000,
                s2c_pkts: 2 + (r >> 44) % 100,
                s2c_bytes: 120 + (r >> 34) % 1_000_000,
                end_reason: EndReason::EndOfInput,
                label: if tls { google } else { stun },
                labels,
                method: Some(if tls { Method::Dpi } else { Method::Stats }),
                confidence: (r % 101) as f32 / 100.0,
                ttb_pkts: 4,
                ttb_us: (r >> 12) % 100_000,
                fpc: None,
                early: wirespeed_stats::Early::default(),
                stats_app: "TLS",
                stats_class: "WEB",
                stats_score: 0.82,
                meta,
                act: None,
                dist: None,
                tcp: None,
                risks: Default::default(),
                encrypted: false,
            }
        })
        .collect()
}

fn time(name: &str, recs: &[FlowRecord<'_>], mut w: impl RecordSink) {
    const N: usize = 1 << 20;
    let mut best = u64::MAX;
    for _ in 0..5 {
        let t = thread_cpu_ns();
        for i in 0..N {
            w.write(black_box(&recs[i % recs.len()])).unwrap();
        }
        best = best.min(thread_cpu_ns() - t);
    }
    w.finish().unwrap();
    println!("{name:<40} {:>7.1} ns/record", best as f64 / N as f64);
}

fn main() {
    let mut labels = Labels::new();
    for (m, a, c) in [("TLS", "Google", "Web"), ("STUN", "STUN", "Network")] {
        labels.intern(m, a, c, Default::default()).unwrap();
    }
    for (kind, tls) in [
        ("worst case (UDP, model label)", false),
        ("TLS with metadata", true),
    ] {
        let recs = records(tls, &labels);
        time(
            &format!("JSON lines, {kind}"),
            &recs,
            JsonLinesWriter::new(io::sink(), false),
        );
        time(
            &format!("CSV, {kind}"),
            &recs,
            CsvWriter::new(io::sink(), false),
        );
        // The worker's share: encoding into messages and queueing them; the exporter thread
        // writes them to /dev/null on the other core.
        let o = wirespeed_export::ipfix::Options::parse("file:/dev/null").unwrap();
        let (exp, h) = wirespeed_export::ipfix::Exporter::spawn(o).unwrap();
        time(
            &format!("IPFIX, {kind}"),
            &recs,
            wirespeed_export::ipfix::IpfixSink::new(exp),
        );
        h.join().unwrap().unwrap();
        // Arrow builders, and every 65,536 records a row group encoded and compressed (the
        // worker's share: only appending it to the file takes the lock).
        #[cfg(feature = "parquet")]
        {
            use wirespeed_export::parquet::{ParquetFile, ROW_GROUP_ROWS};
            let cols = wirespeed_export::Columns::default();
            let null = std::path::Path::new("/dev/null");
            let f = ParquetFile::create(null, cols, ROW_GROUP_ROWS).unwrap();
            time(&format!("Parquet, {kind}"), &recs, f.sink());
            f.finish().unwrap();
        }
    }
}
