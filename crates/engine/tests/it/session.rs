//! The runtime's facade: a Session over the demo trace, with one worker and with two, gives per
//! application the flows, packets and bytes the generator wrote down by construction (not read
//! back by the decoder), and hands back its sinks with every record.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::BufWriter;
use wirespeed_engine::{gen, EngineConfig, ParallelConfig, Session};
use wirespeed_export::NullSink;

#[test]
fn a_session_sums_applications_as_the_generator_wrote_them() {
    let dir = std::env::temp_dir().join(format!("wirespeed-session-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("demo.pcap");
    let (flows, _) = gen::demo(BufWriter::new(File::create(&path).unwrap())).unwrap();
    // The generator's flows, labelled by the port table as it says.
    let mut want: BTreeMap<String, [u64; 3]> = BTreeMap::new();
    for f in &flows {
        let e = want.entry(f.app.to_string()).or_default();
        e[0] += 1;
        e[1] += f.c2s.0 + f.s2c.0;
        e[2] += f.c2s.1 + f.s2c.1;
    }
    for workers in [1, 2] {
        let cfg = EngineConfig {
            classifiers: wirespeed_classify::ClassifierSet::parse("port").unwrap(),
            ..EngineConfig::default()
        };
        let par = ParallelConfig {
            workers,
            ..ParallelConfig::default()
        };
        let mut s = Session::new(cfg, par, |_| NullSink::default(), false);
        let out = s.run_file(&path, &mut |_, _| {}).unwrap();
        assert!(out.error.is_none());
        let (summary, sinks) = s.finish().unwrap();
        let got: BTreeMap<String, [u64; 3]> = summary.apps.into_iter().collect();
        assert_eq!(got, want, "{workers} workers");
        assert_eq!(sinks.len(), workers);
        let records: u64 = sinks.iter().map(|k| k.records).sum();
        assert_eq!(records, flows.len() as u64);
        assert_eq!(summary.counters.records, records);
        assert_eq!(summary.files.len(), 1);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `EngineConfig::stop` (Ctrl-C in the Python module): set while a file is read, reading stops
/// at the next batch with an `Interrupted` error at the offset reached, and the flows of what
/// was read are ended and written; set before, nothing is read.
#[test]
fn a_stop_flag_ends_a_file_early_and_keeps_what_was_read() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    use wirespeed_capture::CaptureErrorKind;
    let dir = std::env::temp_dir().join(format!("wirespeed-stop-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("flood.pcap");
    // 20,000 flows of 2 packets: many batches and chunks for one worker and for two.
    let wc = gen::WorstCase {
        flows: 20_000,
        pkts_per_flow: 2,
        window: 1024,
        ..gen::WorstCase::default()
    };
    gen::worst_case(BufWriter::new(File::create(&path).unwrap()), &wc).unwrap();
    let total = {
        let mut s = Session::new(
            EngineConfig::default(),
            ParallelConfig::default(),
            |_| NullSink::default(),
            false,
        );
        s.run_file(&path, &mut |_, _| {}).unwrap().packets
    };
    for workers in [1, 2] {
        let stop = Arc::new(AtomicBool::new(false));
        let cfg = EngineConfig {
            batch_size: 16,
            stop: Some(stop.clone()),
            ..EngineConfig::default()
        };
        let par = ParallelConfig {
            workers,
            ..ParallelConfig::default()
        };
        let mut s = Session::new(cfg, par, |_| NullSink::default(), false);
        let out = s
            .run_file(&path, &mut |_, _| stop.store(true, Ordering::Relaxed))
            .unwrap();
        let e = out.error.unwrap_or_else(|| {
            panic!(
                "{workers} workers: {} of {total} read, no error",
                out.packets
            )
        });
        assert!(matches!(e.kind, CaptureErrorKind::Interrupted), "{e}");
        assert!(e.to_string().contains("interrupted"), "{e}");
        assert!(
            out.packets > 0 && out.packets < total,
            "{workers} workers: {} of {total} packets read",
            out.packets
        );
        if workers == 1 {
            // One worker reads a batch, reports progress (the flag is set), and stops.
            assert_eq!(out.packets, 16);
        }
        let (summary, sinks) = s.finish().unwrap();
        assert_eq!(summary.counters.packets, out.packets);
        let records: u64 = sinks.iter().map(|k| k.records).sum();
        assert!(records > 0, "the flows of the packets read are written");
        // Set before the run: nothing is read.
        let mut s = Session::new(
            EngineConfig {
                stop: Some(stop.clone()),
                ..EngineConfig::default()
            },
            ParallelConfig {
                workers,
                ..ParallelConfig::default()
            },
            |_| NullSink::default(),
            false,
        );
        let out = s.run_file(&path, &mut |_, _| {}).unwrap();
        assert_eq!(out.packets, 0, "{workers} workers");
        assert!(matches!(
            out.error.map(|e| e.kind),
            Some(CaptureErrorKind::Interrupted)
        ));
    }
    let _ = std::fs::remove_dir_all(&dir);
}
