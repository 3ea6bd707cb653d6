//! Several workers give the same flow records as one: the whole corpus, the demo trace and a
//! synthetic worst case, each run through one [`Worker`] and through [`Pool`]s of 2 and 3 workers.
//! Record order may differ (each worker writes its own flows); the sorted lines must not.

use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use wirespeed_engine::{
    gen, run_file, AppStats, Counters, EngineConfig, ParallelConfig, Pool, Worker,
};
use wirespeed_export::JsonLinesWriter;

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("wirespeed-par-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

struct Run {
    lines: Vec<String>,
    counters: Counters,
    apps: Vec<(String, [u64; 3])>,
}

fn sorted_apps(a: &AppStats) -> Vec<(String, [u64; 3])> {
    let mut v: Vec<_> = a.iter().map(|(k, v)| (k.clone(), *v)).collect();
    v.sort();
    v
}

/// The records, sorted, each without its `flow_id`: ids are unique in the run (checked here) but
/// numbered per worker, so they are the one field that depends on the number of workers.
fn lines(bufs: Vec<Vec<u8>>) -> Vec<String> {
    let mut ids = std::collections::HashSet::new();
    let mut v: Vec<String> = bufs
        .into_iter()
        .flat_map(|b| {
            String::from_utf8(b)
                .unwrap()
                .lines()
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .map(|l| {
            let at = l.find(",\"flow_id\":").expect("a flow_id") + 1;
            let end = at + l[at..].find(',').unwrap();
            assert!(
                ids.insert(l[at..end].to_string()),
                "repeated {}",
                &l[at..end]
            );
            format!("{}{}", &l[..at], &l[end + 1..])
        })
        .collect();
    v.sort();
    v
}

fn one(files: &[PathBuf], cfg: EngineConfig) -> Run {
    let mut w = Worker::new(cfg, JsonLinesWriter::new(Vec::new(), true), true);
    for f in files {
        run_file(&mut w, f, &mut |_, _| {}).unwrap();
    }
    let counters = w.counters();
    let apps = sorted_apps(&w.apps());
    let buf = w.finish().unwrap().into_inner().unwrap();
    Run {
        lines: lines(vec![buf]),
        counters,
        apps,
    }
}

fn pool(files: &[PathBuf], cfg: EngineConfig, workers: usize, reader_thread: bool) -> Run {
    let par = ParallelConfig {
        workers,
        pin: false,
        buffer_mb: 1,
        reader_thread,
    };
    let mut p = Pool::new(cfg, par, |_| JsonLinesWriter::new(Vec::new(), true), true);
    for f in files {
        p.run_file(f, &mut |_, _| {}).unwrap();
    }
    let d = p.dispatch_stats().clone();
    assert_eq!(d.per_worker.len(), workers);
    assert_eq!(d.dropped, 0, "a capture file must not lose packets");
    let counters = p.counters();
    assert_eq!(d.per_worker.iter().sum::<u64>(), counters.packets);
    let apps = sorted_apps(&p.apps());
    let bufs = p
        .finish()
        .unwrap()
        .into_iter()
        .map(|s| s.into_inner().unwrap())
        .collect();
    Run {
        lines: lines(bufs),
        counters,
        apps,
    }
}

/// The counters that must not depend on the number of workers (the table's peak and sweep work
/// and the fragment tables' own bookkeeping do).
fn invariant(c: &Counters) -> Vec<u64> {
    let mut v = vec![
        c.packets,
        c.bytes,
        c.decoded,
        c.frag_orphans,
        c.capture_errors,
        c.records,
        c.table.created,
        c.table.idle,
        c.table.closed,
        c.table.evicted,
    ];
    v.extend_from_slice(&c.drops);
    v
}

fn check_same(files: &[PathBuf], cfg: EngineConfig, what: &str) {
    let base = one(files, cfg.clone());
    assert!(!base.lines.is_empty(), "{what}: no records");
    // The batch size sets how often the stepwise sweep runs: it must not change any record.
    let mut b1 = cfg.clone();
    b1.batch_size = 1;
    let mut b7 = cfg.clone();
    b7.batch_size = 7;
    let runs = [
        ("1 worker, batch 1", one(files, b1)),
        ("2 workers", pool(files, cfg.clone(), 2, false)),
        ("3 workers", pool(files, cfg.clone(), 3, false)),
        ("2 workers, batch 7", pool(files, b7.clone(), 2, false)),
        (
            "2 workers, reader thread",
            pool(files, cfg.clone(), 2, true),
        ),
        (
            "3 workers, reader thread, batch 7",
            pool(files, b7, 3, true),
        ),
    ];
    for (n, r) in runs {
        assert_eq!(r.lines.len(), base.lines.len(), "{what}: {n}");
        for (a, b) in base.lines.iter().zip(&r.lines) {
            assert_eq!(a, b, "{what}: first record that differs with {n}");
        }
        assert_eq!(
            invariant(&r.counters),
            invariant(&base.counters),
            "{what}: {n}"
        );
        assert_eq!(r.apps, base.apps, "{what}: {n}");
    }
    eprintln!(
        "{what}: {} records, the same with 1, 2 and 3 workers (sharing one scan of the file or fed by a \
         reader thread) and batches of 1, 7 and {}",
        base.lines.len(),
        cfg.batch_size
    );
}

/// How far, at most, a capture's timestamps go back below the latest seen so far.
fn max_step_back_ns(path: &Path) -> u64 {
    let Ok(f) = wirespeed_capture::CaptureFile::open(path) else {
        return 0;
    };
    let (mut latest, mut back) = (0u64, 0u64);
    for p in f.reader() {
        let Ok(p) = p else { break };
        latest = latest.max(p.ts_ns);
        back = back.max(latest - p.ts_ns);
    }
    back
}

#[test]
fn corpus_records_do_not_depend_on_workers() {
    let Some(corpus) = wirespeed_testkit::corpus("corpus_records_do_not_depend_on_workers") else {
        return;
    };
    let files = corpus.pcaps();
    assert!(
        !files.is_empty(),
        "{} holds no capture",
        corpus.pcap_dir().display()
    );
    // Every capture, those whose time goes back by more than the shortest timeout (10 s: how
    // long a closed TCP flow lingers) included: there a packet's own time would say a flow is
    // live while the sweep, at the input's latest time, has ended it. Expiry follows the input's
    // monotonic clock everywhere, so the records cannot depend on batch boundaries or workers.
    let back = files
        .iter()
        .filter(|f| max_step_back_ns(f) >= 10_000_000_000)
        .count();
    eprintln!(
        "corpus: {} captures, {back} of them going back in time by more than 10 s",
        files.len()
    );
    assert!(
        back > 0,
        "the corpus no longer has a capture whose time goes back"
    );
    check_same(&files, EngineConfig::default(), "corpus");
    // Tstat-like timeouts make flows end idle inside captures: expiry must follow the input's
    // clock, not each worker's share of it.
    let mut cfg = EngineConfig::default();
    cfg.flow.timeouts.tcp_ns = 300_000_000_000;
    cfg.flow.timeouts.udp_ns = 120_000_000_000;
    cfg.flow.timeouts.other_ns = 60_000_000_000;
    check_same(&files, cfg, "corpus, Tstat timeouts");
}

#[test]
fn demo_records_do_not_depend_on_workers() {
    let p = temp("demo.pcap");
    gen::demo(BufWriter::new(File::create(&p).unwrap())).unwrap();
    check_same(&[p.clone(), p], EngineConfig::default(), "demo twice");
}

#[test]
fn worst_case_records_do_not_depend_on_workers_and_spread() {
    let p = temp("worst.pcap");
    let wc = gen::WorstCase {
        flows: 20_000,
        window: 4096,
        ..gen::WorstCase::default()
    };
    gen::worst_case(BufWriter::new(File::create(&p).unwrap()), &wc).unwrap();
    check_same(
        std::slice::from_ref(&p),
        EngineConfig::default(),
        "worst case",
    );
    // Both workers get a fair share of the packets (5 per flow), pinned, with or without a
    // reader thread.
    for reader_thread in [false, true] {
        let mut pl = Pool::new(
            EngineConfig::default(),
            ParallelConfig {
                workers: 2,
                pin: true,
                buffer_mb: 1,
                reader_thread,
            },
            |_| wirespeed_export::NullSink::default(),
            false,
        );
        let t = std::time::Instant::now();
        let out = pl.run_file(&p, &mut |_, _| {}).unwrap();
        let wall = t.elapsed().as_nanos() as u64;
        assert_eq!(out.packets, 100_000);
        let d = pl.dispatch_stats().clone();
        assert!(d.per_worker.iter().all(|&n| n > 45_000), "{d:?}");
        // Where the workers' time went: a shared scan is timed (someone read the file), and no
        // worker scanned and waited for longer than the run took.
        assert_eq!(d.scan_ns.len(), 2);
        assert_eq!(d.scan_ns.iter().sum::<u64>() > 0, !reader_thread, "{d:?}");
        for i in 0..2 {
            assert!(d.scan_ns[i] + d.wait_ns[i] <= wall, "{d:?}, run {wall} ns");
        }
        assert_eq!(d.per_worker.iter().sum::<u64>(), 100_000, "{d:?}");
        let sinks = pl.finish().unwrap();
        assert_eq!(sinks.iter().map(|s| s.records).sum::<u64>(), 20_000);
    }
}

/// Fails once it has taken `left` records (a full disk, a closed socket).
struct FailingSink {
    left: u64,
}

impl wirespeed_export::RecordSink for FailingSink {
    fn write(&mut self, _r: &wirespeed_export::FlowRecord<'_>) -> std::io::Result<()> {
        if self.left == 0 {
            return Err(std::io::Error::other("sink broke"));
        }
        self.left -= 1;
        Ok(())
    }

    fn finish(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn a_failing_sink_ends_the_run_with_its_error_and_no_worker_waits_forever() {
    let p = temp("worst-sink.pcap");
    let wc = gen::WorstCase {
        flows: 20_000,
        window: 256,
        ..gen::WorstCase::default()
    };
    gen::worst_case(BufWriter::new(File::create(&p).unwrap()), &wc).unwrap();
    // Flows go idle within the file, so records are written while it is read: the last worker's
    // sink fails early, the others' never.
    let mut cfg = EngineConfig::default();
    cfg.flow.timeouts.udp_ns = 1_000;
    cfg.flow.timeouts.tcp_ns = 1_000;
    for workers in [2, 3] {
        for reader_thread in [false, true] {
            let par = ParallelConfig {
                workers,
                pin: false,
                buffer_mb: 1,
                reader_thread,
            };
            let mut pl = Pool::new(
                cfg.clone(),
                par,
                |i| FailingSink {
                    left: if i + 1 == workers { 100 } else { u64::MAX },
                },
                false,
            );
            let err = pl.run_file(&p, &mut |_, _| {}).unwrap_err();
            assert!(
                err.to_string().contains("sink broke"),
                "{workers} workers, reader thread {reader_thread}: {err}"
            );
        }
    }
}
